"""Writes a reference text beside each EPUB, ODT, RTF and e-mail fixture in tests/fixtures/formats/
(<fixture>.ref.txt) for the formats eval: what a second reader, independent of the service's, finds in it.

- EPUB, ODT, RTF: pandoc (Debian's pandoc 2.17, `apt-get install pandoc`), `-t plain --wrap=none`.
- EML: Python's standard library (email.parser, policy.default): the text/plain body (else the HTML's text
  through html.parser), then each attachment by its own reader: pandoc for DOCX/ODT/EPUB/RTF, `pdftotext
  -layout` (poppler-utils) for PDF, the text itself for text parts, recursively for attached e-mails.
- MSG: msgconvert (Debian's libemail-outlook-message-perl, `apt-get install --no-install-recommends
  libemail-outlook-message-perl libemail-address-perl`; Perl's Email::Outlook::Message, a reader independent of
  the service's msgreader) turns the Outlook item into a MIME message, read as EML above.

Run from the repository root: python3 scripts/make-format-references.py. Deterministic for a given pandoc and
poppler."""

import email
import email.policy
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

root = Path(__file__).resolve().parent.parent
folder = root / "tests" / "fixtures" / "formats"
PANDOC = {".epub": "epub", ".odt": "odt", ".rtf": "rtf", ".docx": "docx"}


def pandoc(data: bytes, suffix: str) -> str:
    with tempfile.NamedTemporaryFile(suffix=suffix) as f:
        f.write(data)
        f.flush()
        return subprocess.run(
            ["pandoc", "-f", PANDOC[suffix], "-t", "plain", "--wrap=none", f.name],
            check=True, capture_output=True, text=True,
        ).stdout


def pdftotext(data: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        return subprocess.run(["pdftotext", "-layout", f.name, "-"], check=True, capture_output=True, text=True).stdout


def msgconvert(fixture: Path) -> bytes:
    with tempfile.TemporaryDirectory() as out:
        eml = Path(out) / "item.eml"
        subprocess.run(["msgconvert", "--outfile", str(eml), str(fixture)], check=True, capture_output=True)
        return eml.read_bytes()


class Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("script", "style", "head")

    def handle_endtag(self, tag):
        self.skip -= tag in ("script", "style", "head") and self.skip > 0

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = Text()
    parser.feed(html)
    return " ".join(parser.parts)


def message_text(message) -> str:
    out = [message.get("subject", "")]
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        content = body.get_content()
        out.append(html_text(content) if body.get_content_type() == "text/html" else content)
    for part in message.iter_attachments():
        name = part.get_filename() or ""
        kind = part.get_content_type()
        if kind == "message/rfc822":
            out.append(message_text(part.get_content()))
            continue
        data = part.get_payload(decode=True) or b""
        suffix = Path(name).suffix.lower()
        if suffix in PANDOC:
            out.append(pandoc(data, suffix))
        elif kind == "application/pdf" or suffix == ".pdf":
            out.append(pdftotext(data))
        elif kind.startswith("text/"):
            out.append(data.decode(part.get_content_charset() or "utf-8", "replace"))
    return "\n\n".join(t.strip() for t in out if t and t.strip())


for fixture in sorted(folder.iterdir()):
    suffix = fixture.suffix.lower()
    if fixture.name.endswith(".ref.txt"):
        continue
    if suffix in (".epub", ".odt", ".rtf"):
        text = pandoc(fixture.read_bytes(), suffix)
    elif suffix == ".eml":
        text = message_text(email.message_from_bytes(fixture.read_bytes(), policy=email.policy.default))
    elif suffix == ".msg":
        text = message_text(email.message_from_bytes(msgconvert(fixture), policy=email.policy.default))
    else:
        continue
    fixture.with_name(fixture.name + ".ref.txt").write_text(text.strip() + "\n")
    print(fixture.name, len(text), file=sys.stderr)
