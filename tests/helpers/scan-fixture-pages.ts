/**
 * The pages of tests/fixtures/scan-*.png as HTML, written for this project:
 * `scripts/make-scan-fixtures.ts` prints them to PDF and renders them as
 * scans; the OCR tests read what the page says from here.
 */

export const STYLE = `
  @page { size: 148mm 210mm; margin: 12mm; }
  body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10.5pt; line-height: 1.35; }
  h1 { font-size: 16pt; margin: 0 0 8pt; }
  h2 { font-size: 12.5pt; margin: 12pt 0 5pt; }
  p { margin: 0 0 6pt; }
  table { border-collapse: collapse; margin: 4pt 0 8pt; }
  table.ruled td, table.ruled th { border: 1px solid #000; padding: 3pt 7pt; }
  table.plain td, table.plain th { padding: 2pt 12pt 2pt 0; text-align: left; }
  table.ledger td, table.ledger th { padding: 1pt 0 1pt 30pt; text-align: right; }
  table.ledger td:first-child, table.ledger th:first-child { padding-left: 0; text-align: left; }
  td.n { text-align: right; }
  ul.square { list-style: square; }
`;

/** A ruled table, an unruled one, one with spanning cells, and bulleted lists (drawn square bullets, typed ones). */
export const TABLES = `
<h1>Harbour Freight Review</h1>
<p>Tonnage handled at each quay, in thousands of tonnes.</p>
<table class="ruled">
  <tr><th>Quay</th><th>2024</th><th>2025</th><th>Change</th></tr>
  <tr><td>North</td><td class="n">41.2</td><td class="n">44.9</td><td class="n">+9.0%</td></tr>
  <tr><td>East</td><td class="n">75.0</td><td class="n">88.3</td><td class="n">+17.7%</td></tr>
  <tr><td>South</td><td class="n">63.5</td><td class="n">60.1</td><td class="n">-5.4%</td></tr>
  <tr><td>West</td><td class="n">28.7</td><td class="n">31.6</td><td class="n">+10.1%</td></tr>
</table>
<h2>Vessels by operator</h2>
<table class="plain">
  <tr><th>Operator</th><th>Vessels</th><th>Crew</th></tr>
  <tr><td>Kestrel Lines</td><td>14</td><td>320</td></tr>
  <tr><td>Blue Heron Shipping</td><td>9</td><td>187</td></tr>
  <tr><td>Marlow Coastal</td><td>22</td><td>405</td></tr>
  <tr><td>Tern Ferries</td><td>6</td><td>98</td></tr>
</table>
<h2>Cargo handled per shift</h2>
<table class="ruled">
  <tr><th rowspan="2">Berth</th><th colspan="2">Containers</th><th rowspan="2">Crane hours</th></tr>
  <tr><th>Loaded</th><th>Unloaded</th></tr>
  <tr><td>Berth 1</td><td class="n">212</td><td class="n">198</td><td class="n">16</td></tr>
  <tr><td>Berth 2</td><td class="n">174</td><td class="n">230</td><td class="n">19</td></tr>
</table>
<h2>Checks before sailing</h2>
<ul class="square">
  <li>Confirm the berth and tide window</li>
  <li>Inspect the mooring lines for wear</li>
</ul>
<p>Stores &bull; fuel &bull; water are logged at the gate.</p>
`;

/** Two columns of prose: read down the left column, then the right. */
export const COLUMNS = `
<h1>Notes on Tidal Moorings</h1>
<div style="column-count: 2; column-gap: 9mm; text-align: left;">
<p>Moorings in a tidal harbour must allow for the rise and fall of the water twice a day. A line that is snug at high
water will hang slack at low water, and a vessel left on short lines can be held down as the tide rises beneath it.</p>
<p>Harbour masters therefore publish the range for each berth, and crews adjust their lines before every change of
tide. Springs and breast lines are checked first, because they keep the hull from surging along the quay.</p>
<p>Fenders are set at the height of the rubbing strake when the vessel lies alongside at half tide. Below that, a
fender can ride up over the quay edge as the water drops and leave the hull against bare stone.</p>
<p>Winter gales bring a further hazard: a surge can raise the water well above the predicted height, so lines are
doubled and the watch is kept through the night until the wind eases.</p>
</div>
`;

/** One long unruled table of right-aligned numbers: Tesseract reads its last two columns as a block of their own. */
export const LEDGER_ROWS: [string, string, string, string][] = [
  ["Kestrel Lines", "100000", "2", "0"],
  ["Blue Heron", "107919", "5", "37"],
  ["Marlow Coastal", "115838", "8", "24"],
  ["Tern Ferries", "123757", "11", "11"],
  ["Gannet Bay", "131676", "14", "48"],
  ["Puffin Isle", "139595", "17", "35"],
  ["Curlew Sound", "147514", "20", "22"],
  ["Dunlin Point", "155433", "23", "9"],
  ["Eider Rock", "163352", "26", "46"],
  ["Fulmar Head", "171271", "29", "33"],
  ["Grebe Water", "179190", "32", "20"],
  ["Heron Cove", "187109", "35", "7"],
];

export const LEDGER = `
<h1>Fleet Ledger</h1>
<table class="ledger">
  <tr><th>Operator</th><th>Tonne km</th><th>Calls</th><th>Delays</th></tr>
  ${LEDGER_ROWS.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("\n  ")}
</table>
`;
