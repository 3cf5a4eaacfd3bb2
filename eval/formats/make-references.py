"""Reference texts for the formats evaluation (eval/formats.ts), written by
readers independent of Chunkwise's: openpyxl (XLSX, cached values), odfpy
(ODS; ODP: every paragraph of each page and its notes, and each table's rows),
Python's csv module (CSV/TSV, the encoding named below), and for PPTX
LibreOffice Impress (`soffice --headless --convert-to odp`, its own PPTX
import filter) followed by the ODP reader above.

    /usr/bin/python3 eval/formats/make-references.py tests/fixtures/formats

Writes <fixture>.ref.txt beside each fixture: its words as text, and each
table's rows as lines "|<TAB>a<TAB>b" followed by a blank line. Needs Debian's
python3-openpyxl, python3-odf and libreoffice-impress
(`apt-get install --no-install-recommends libreoffice-impress`).
"""
import csv
import io
import os
import shutil
import subprocess
import tempfile
import sys


# CSV fixtures not in UTF-8, as their sources say.
CSV_ENCODINGS = {"markitdown-mskanji.csv": "cp932", "spectrum-latin1.csv": "cp1252"}
# Files the evaluation does not score (hostile inputs).
SKIP = {"calamine-issue_594_dos.ods"}


def row(cells):
    """A table row: "|" and the cells, each after a tab (cells may hold "|", never a tab once spaces are folded)."""
    return "|\t" + "\t".join(" ".join(str(c).split()) for c in cells)


def pptx(path):
    """LibreOffice's PPTX import, written out as ODP, read by odp() below."""
    with tempfile.TemporaryDirectory() as out:
        copy = os.path.join(out, "deck.pptx")
        shutil.copy(path, copy)
        subprocess.run(
            ["soffice", "--headless", "--convert-to", "odp", "--outdir", out, copy],
            check=True, capture_output=True, timeout=300,
        )
        return odp(os.path.join(out, "deck.odp"))


def xlsx(path):
    import openpyxl

    book = openpyxl.load_workbook(path, data_only=True)
    out = []
    for sheet in book.worksheets:
        if sheet.sheet_state != "visible":
            continue
        out.append(sheet.title)
        for values in sheet.iter_rows(values_only=True):
            cells = ["" if v is None else fmt(v) for v in values]
            if any(cells):
                out.append(row(cells))
        out.append("")
    return out


def fmt(value):
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if hasattr(value, "isoformat"):
        text = value.isoformat(sep=" ") if hasattr(value, "hour") else value.isoformat()
        return text[:-9] if text.endswith(" 00:00:00") else text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def ods(path):
    from odf.opendocument import load
    from odf.table import Table, TableRow, TableCell
    from odf import teletype

    from odf.style import Style, TableProperties

    doc = load(path)
    hidden = {
        style.getAttribute("name")
        for style in doc.automaticstyles.getElementsByType(Style)
        for props in style.getElementsByType(TableProperties)
        if props.getAttribute("display") == "false"
    }
    out = []
    for table in doc.spreadsheet.getElementsByType(Table):
        if table.getAttribute("stylename") in hidden:
            continue
        out.append(table.getAttribute("name"))
        for tr in table.getElementsByType(TableRow):
            repeat = min(int(tr.getAttribute("numberrowsrepeated") or 1), 1000)
            cells = []
            for tc in tr.getElementsByType(TableCell):
                n = min(int(tc.getAttribute("numbercolumnsrepeated") or 1), 100)
                cells.extend([teletype.extractText(tc)] * n)
            while cells and not cells[-1].strip():
                cells.pop()
            if cells:
                out.extend([row(cells)] * repeat)
        out.append("")
    return out


def odp(path):
    from odf.opendocument import load
    from odf.draw import Page
    from odf.text import P, H
    from odf import teletype

    from odf.table import Table, TableRow, TableCell

    doc = load(path)
    out = []
    for page in doc.presentation.getElementsByType(Page):
        for para in page.getElementsByType(P) + page.getElementsByType(H):
            text = teletype.extractText(para).strip()
            # The notes page's page-number field; table cells are scored as the rows below.
            if text and not text.isdigit() and not in_table_or_chrome(para):
                out.append(text)
        for table in page.getElementsByType(Table):
            for tr in table.getElementsByType(TableRow):
                cells = [teletype.extractText(tc).strip() for tc in tr.getElementsByType(TableCell)]
                if any(cells):
                    out.append(row(cells))
            out.append("")
    return out


CHROME = {"page-number", "footer", "date-time", "header"}


def in_table_or_chrome(node):
    """Inside a table cell, or a frame showing the page number, footer, date or header."""
    while node is not None and getattr(node, "qname", None) is not None:
        name = node.qname[1]
        if name == "table-cell":
            return True
        if name == "frame":
            cls = node.attributes.get(("urn:oasis:names:tc:opendocument:xmlns:presentation:1.0", "class"))
            if cls in CHROME:
                return True
        node = node.parentNode
    return False


def csv_text(path, name):
    raw = open(path, "rb").read()
    text = raw.decode(CSV_ENCODINGS.get(name, "utf-8-sig"))
    try:
        dialect = csv.excel_tab if name.endswith(".tsv") else csv.Sniffer().sniff(text[:4096], delimiters=",\t;|")
    except csv.Error:
        dialect = csv.excel
    out = [row(cells) for cells in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in cells)]
    return out + [""]


def main(folder):
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        ext = name.rsplit(".", 1)[-1].lower()
        if name in SKIP or name.endswith(".ref.txt"):
            continue
        if ext == "pptx":
            lines = pptx(path)
        elif ext == "xlsx":
            lines = xlsx(path)
        elif ext == "ods":
            lines = ods(path)
        elif ext == "odp":
            lines = odp(path)
        elif ext in ("csv", "tsv"):
            lines = csv_text(path, name)
        else:
            continue
        if not any(line.strip() for line in lines):
            continue
        with open(path + ".ref.txt", "w", encoding="utf-8") as f:
            f.write("\n".join(lines).strip() + "\n")
        print(name, len(lines))


main(sys.argv[1])
