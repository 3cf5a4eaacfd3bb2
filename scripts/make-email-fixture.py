"""Writes tests/fixtures/formats/eml-report-attachments.eml: a reply with an HTML and a text body (quoting the
message it answers) and the repository's report.docx and structured.pdf attached. Composed with Python's standard
library (email.message), a MIME writer independent of the parsers the service uses; deterministic."""

from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

root = Path(__file__).resolve().parent.parent
fixtures = root / "tests" / "fixtures"

message = EmailMessage(policy=SMTP)
message["From"] = "Ada Lovelace <ada@example.org>"
message["To"] = "Charles Babbage <charles@example.org>, Mary Somerville <mary@example.org>"
message["Cc"] = "archive@example.org"
message["Date"] = "Tue, 03 Mar 2026 10:15:00 +0000"
message["Subject"] = "Re: Quarterly report and layout notes"
message["Message-ID"] = "<report-attachments@example.org>"
message["MIME-Version"] = "1.0"

text = """Charles,

Both files are attached: the quarterly report as a Word document and the layout notes as a PDF.
The figures in the report's table are final; the lists still need your review.

Ada

On Mon, 02 Mar 2026 at 17:02, Charles Babbage wrote:
> Could you send the quarterly report and the layout notes before Wednesday?
> The engine committee meets on Thursday morning.
"""
html = """<html><body>
<p>Charles,</p>
<p>Both files are attached: the quarterly report as a Word document and the layout notes as a PDF.
The figures in the report's table are final; the lists still need your review.</p>
<p>Ada</p>
<div class="gmail_quote">On Mon, 02 Mar 2026 at 17:02, Charles Babbage wrote:
<blockquote><p>Could you send the quarterly report and the layout notes before Wednesday?
The engine committee meets on Thursday morning.</p></blockquote></div>
</body></html>
"""
message.set_content(text)
message.add_alternative(html, subtype="html")
message.add_attachment(
    (fixtures / "report.docx").read_bytes(),
    maintype="application",
    subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
    filename="report.docx",
)
message.add_attachment((fixtures / "structured.pdf").read_bytes(), maintype="application", subtype="pdf", filename="layout-notes.pdf")

boundary_counter = iter(range(1, 100))
for part in message.walk():
    if part.is_multipart():
        part.set_boundary(f"=_boundary_{next(boundary_counter)}")

(fixtures / "formats" / "eml-report-attachments.eml").write_bytes(message.as_bytes())
