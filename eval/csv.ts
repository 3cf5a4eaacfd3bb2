/**
 * RFC 4180 CSV (quoted fields, doubled quotes, newlines inside quotes) into
 * records keyed by the header row. No CSV package is installed, and the one
 * file read with it is small and well-formed; malformed input throws.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const [header, ...records] = parseCsvRows(text);
  if (!header) return [];
  return records.map((cells, n) => {
    if (cells.length !== header.length)
      throw new Error(`CSV: record ${n + 1} has ${cells.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, j) => [name, cells[j]!]));
  });
}

/** The records of a CSV text as arrays of fields, the header row first. */
export function parseCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = "";
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < text.length && !",\r\n".includes(text[i]!))
          throw new Error(`CSV: text after a closing quote at offset ${i}`);
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === ",") endField();
    else if (c === "\n" || c === "\r") {
      endField();
      rows.push(row);
      row = [];
      if (c === "\r" && text[i + 1] === "\n") i++;
    } else field += c;
    i++;
  }
  if (quoted) throw new Error("CSV: unterminated quoted field");
  if (field !== "" || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}
