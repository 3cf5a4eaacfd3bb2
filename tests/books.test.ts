import { readFileSync } from "node:fs";
import path from "node:path";
import { strToU8, zipSync, type Zippable } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitDocument } from "@/lib/chunking";
import type { Chunk } from "@/lib/chunking/types";
import { loadConfig } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { extract, type Extracted, type ExtractLimits } from "@/lib/extract";
import { detect } from "@/lib/extract/detect";
import { estimatePages } from "@/lib/extract/page-count";
import { formatChunks } from "@/lib/formats";
import { createServices, setServices } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { call, upload } from "./helpers/api";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";

/** EPUB, ODT, RTF and e-mail (EML, MSG): structure kept, metadata on chunks, hostile files refused. */

const LIMITS: ExtractLimits = {
  maxUnpackedBytes: 20 * 1024 * 1024,
  markup: loadConfig({}).limits.markup,
  maxChars: 1_000_000,
  maxPages: 1000,
  maxOcrPages: 10,
  timeoutMs: 60_000,
  maxEmailDepth: 3,
};

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures", name)));
const formats = (name: string) => fixture(`formats/${name}`);
const read = (bytes: Uint8Array, limits: Partial<ExtractLimits> = {}) => extract(bytes, {}, { ...LIMITS, ...limits });
const noEmbedder = { id: "none", embed: () => Promise.reject(new Error("no embedding in this test")) };
const chunk = (doc: Extracted, tier: "free" | "structure", maxTokens = 60): Promise<Chunk[]> =>
  splitDocument(doc, tier, { maxTokens, overlapTokens: 0 }, { embedder: noEmbedder });

async function refused(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "expected a refusal").toBeInstanceOf(ApiError);
  const api = error as ApiError;
  expect({ status: api.status, code: api.code }).toEqual({ status, code });
  expect(api.message.length).toBeGreaterThan(20);
  return api;
}

/** An EPUB from its parts: mimetype first and stored, as the format asks. */
function epub(files: Record<string, string | Uint8Array>, opf: string): Uint8Array {
  const zip: Zippable = { mimetype: [strToU8("application/epub+zip"), { level: 0 }] };
  zip["META-INF/container.xml"] = strToU8(
    `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  );
  zip["OEBPS/content.opf"] = strToU8(opf);
  for (const [name, data] of Object.entries(files)) zip[name] = typeof data === "string" ? strToU8(data) : data;
  return zipSync(zip);
}

const xhtml = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>${body}</body></html>`;

/** Two chapters without headings, the spine in the reverse of the manifest's order, titles in an NCX (EPUB 2). */
const EPUB2_OPF = `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata/>
<manifest><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/b%20two.xhtml" media-type="application/xhtml+xml"/>
<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest>
<spine toc="ncx"><itemref idref="b"/><itemref idref="a"/></spine></package>`;
const NCX = `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap>
<navPoint id="p1"><navLabel><text>Opening Chapter</text></navLabel><content src="text/b%20two.xhtml"/></navPoint>
<navPoint id="p2"><navLabel><text>Closing Chapter</text></navLabel><content src="text/a.xhtml#start"/></navPoint></navMap></ncx>`;
const EPUB2_FILES = {
  "OEBPS/toc.ncx": NCX,
  "OEBPS/text/b two.xhtml": xhtml(
    `<p>First words of the book.</p><p><img src="../i.png" alt="A lighthouse at dusk"/></p>`,
  ),
  "OEBPS/text/a.xhtml": xhtml(`<p>Last words of the book.</p><ul><li>one</li><li>two</li></ul>`),
};

describe("EPUB", () => {
  it("reads chapters in spine order, titles from the NCX where chapters have no heading, alt text kept", async () => {
    const doc = await read(epub(EPUB2_FILES, EPUB2_OPF));
    expect(doc.kind).toBe("epub");
    expect(doc.mediaType).toBe("application/epub+zip");
    expect(doc.text).toBe(
      "# Opening Chapter\n\nFirst words of the book.\n\n_(Image: A lighthouse at dusk)_\n\n# Closing Chapter\n\nLast words of the book.\n\n- one\n- two",
    );
    expect(doc.pages?.map((p) => p.number)).toEqual([1, 2]);
  });

  it("takes EPUB 3's nav titles, and keeps a chapter's own heading", async () => {
    const opf = `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`;
    const nav = xhtml(
      `<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc"><ol><li><a href="c1.xhtml">Nav Title One</a></li><li><a href="c2.xhtml">Nav Title Two</a></li></ol></nav>`,
    );
    const doc = await read(
      epub(
        {
          "OEBPS/nav.xhtml": nav,
          "OEBPS/c1.xhtml": xhtml("<p>Alpha text.</p>"),
          "OEBPS/c2.xhtml": xhtml("<h2>Own Heading</h2><p>Beta text.</p>"),
        },
        opf,
      ),
    );
    expect(doc.text).toBe("# Nav Title One\n\nAlpha text.\n\n## Own Heading\n\nBeta text.");
    // The nav document is not in the spine, so its links are not text.
    expect(doc.text).not.toContain("Nav Title Two");
  });

  it("reads a real EPUB 2 and a real EPUB 3, chapters as page_start", async () => {
    const epub2 = await read(formats("epub-epub2_cover.epub"));
    expect(epub2.text).toContain("# EPUB Pandoc Test");
    // Spine item 1 is the cover, an image whose alt text is its file name: no text, no chapter.
    expect(epub2.pages?.map((p) => p.number)).toEqual([2]);

    const epub3 = await read(formats("epub-features.epub"));
    expect(epub3.text.split("\n")[0]).toBe("# Reflowable EPUB 3 Conformance Test Document: 0100");
    // Spine item 2 holds no text: chapters keep their place in the spine.
    expect(epub3.pages?.map((p) => p.number)).toEqual([1, 3, 4]);
    const chunks = await chunk(epub3, "structure");
    const starts = chunks.map((c) => c.metadata.page_start);
    expect(starts[0]).toBe(1);
    expect(starts.at(-1)).toBe(4);
    expect(starts).toEqual([...starts].sort((a, b) => a! - b!));
    for (const c of chunks) expect(c.metadata.page_end).toBeGreaterThanOrEqual(c.metadata.page_start!);

    const wasteland = await read(formats("epub-wasteland.epub"));
    expect(wasteland.text).toMatch(/^# The Waste Land\n/);
    expect(wasteland.text).toContain("## I. THE BURIAL OF THE DEAD");
    expect(wasteland.text.indexOf("BURIAL OF THE DEAD")).toBeLessThan(wasteland.text.indexOf("II. A GAME OF CHESS"));
  });

  it("refuses a book whose chapters are encrypted (DRM) with drm_protected, and reads one with obfuscated fonts only", async () => {
    const encryption = (algorithm: string, uri: string) =>
      `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`;
    const drm = epub(
      {
        ...EPUB2_FILES,
        "META-INF/encryption.xml": encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/text/a.xhtml"),
        "META-INF/rights.xml": "<rights/>",
      },
      EPUB2_OPF,
    );
    const error = await refused(read(drm), 400, "drm_protected");
    expect(error.message).toMatch(/DRM/);

    const fonts = epub(
      {
        ...EPUB2_FILES,
        "META-INF/encryption.xml": encryption("http://www.idpf.org/2008/embedding", "OEBPS/fonts/f.otf"),
        "OEBPS/fonts/f.otf": new Uint8Array(64),
      },
      EPUB2_OPF,
    );
    expect((await read(fonts)).text).toContain("First words of the book.");
  });

  it("refuses a zip bomb, a chapter nested too deep and a book without a package, in bounded time", async () => {
    const bomb = epub({ ...EPUB2_FILES, "OEBPS/text/a.xhtml": new Uint8Array(64 * 1024 * 1024) }, EPUB2_OPF);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await refused(read(bomb), 413, "zip_bomb");

    const deep = epub({ ...EPUB2_FILES, "OEBPS/text/a.xhtml": xhtml("<div>".repeat(20_000) + "x") }, EPUB2_OPF);
    await refused(read(deep), 400, "document_too_complex");

    const noPackage = zipSync({ mimetype: [strToU8("application/epub+zip"), { level: 0 }], "a.xhtml": strToU8("x") });
    await refused(read(noPackage), 400, "corrupted_document");
  });

  it("counts the elements of the package and of all chapters against one budget, refusing a book past it", async () => {
    const small = { markup: { maxDepth: LIMITS.markup.maxDepth, maxElements: 5_000 } };
    // Three chapters of 2,000 elements each: every one under the budget, the book over it.
    const spread = epub(
      {
        "OEBPS/toc.ncx": NCX,
        "OEBPS/text/b two.xhtml": xhtml("<span>b</span>".repeat(2_000)),
        "OEBPS/text/a.xhtml": xhtml("<span>a</span>".repeat(2_000)),
        "OEBPS/text/c.xhtml": xhtml("<span>c</span>".repeat(2_000)),
      },
      EPUB2_OPF.replace(
        "</manifest>",
        '<item id="c" href="text/c.xhtml" media-type="application/xhtml+xml"/></manifest>',
      ).replace("</spine>", '<itemref idref="c"/></spine>'),
    );
    const error = await refused(read(spread, small), 400, "document_too_complex");
    expect(error.message).toContain("5,000 elements");
    // The same book is read under the default budget.
    expect((await read(spread)).text).toContain("cccc");

    // A package document of 300,000 empty elements (2 MB), under the default budget's bytes, over its elements.
    const items = '<meta name="x"/>'.repeat(300_000);
    const hugePackage = epub(EPUB2_FILES, EPUB2_OPF.replace("<metadata/>", `<metadata>${items}</metadata>`));
    const huge = await refused(read(hugePackage), 400, "document_too_complex");
    expect(huge.message).toContain(`${LIMITS.markup.maxElements.toLocaleString("en-US")} elements`);
  });
});

describe("ODT", () => {
  it("keeps headings with their levels", async () => {
    const doc = await read(formats("odt-headers.odt"));
    expect(doc.kind).toBe("odt");
    expect(doc.text).toBe(
      "# A header (Lv 1)\n\nA paragraph\n\n## Another header (Lv 2)\n\nAnother paragraph\n\n# Back to Level 1",
    );
  });

  it("keeps tables with their header row, and footnotes", async () => {
    const table = await read(formats("odt-simpleTableWithHeader.odt"));
    expect(table.text.split("\n").slice(0, 3)).toEqual(["| A | B | C |", "| - | - | - |", "| 1 |   |   |"]);
    const note = await read(formats("odt-footnote.odt"));
    expect(note.text).toMatch(/^Some text\[\\\[1\\\]\]\(#note-1\) with a footnote\./);
    expect(note.text).toMatch(/1\. Footnote text$/);
  });

  it("keeps numbered, nested and bulleted lists", async () => {
    const ordered = await read(formats("odt-orderedListSimple.odt"));
    expect(ordered.text).toMatch(/^1\. A list item\n2\. A second\n3\. A third\n/);
    expect(ordered.text).toMatch(/\n {2}1\. New level!\n/);
    const bullets = await read(formats("odt-unorderedList.odt"));
    expect(bullets.text.split("\n").filter((l) => l.startsWith("- ")).length).toBeGreaterThanOrEqual(2);
  });

  it("refuses a zip bomb before unpacking it", async () => {
    const bomb = zipSync({
      mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
      "content.xml": new Uint8Array(64 * 1024 * 1024),
    });
    const detected = await detect(bomb, {});
    expect(detected.kind).toBe("odt");
    await refused(read(bomb), 413, "zip_bomb");
  });

  it("refuses content nested too deep, and more elements than the budget even where they make no HTML", async () => {
    const odt = (body: string) =>
      zipSync({
        mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
        "content.xml": strToU8(
          `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>${body}</office:text></office:body></office:document-content>`,
        ),
      });
    const fine = await read(odt("<text:p>Plain words.</text:p>"));
    expect(fine.text).toBe("Plain words.");

    // A captioned image as LibreOffice writes it: the image's frame inside the text box of the caption's frame.
    const draw = 'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"';
    const svg = 'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"';
    const captioned = await read(
      odt(
        `<text:p><draw:frame ${draw}><draw:text-box><text:p><draw:frame ${draw}><draw:image/><svg:title ${svg}>A lighthouse at dusk</svg:title></draw:frame>Figure 1: The lighthouse</text:p></draw:text-box></draw:frame></text:p>`,
      ),
    );
    expect(captioned.text.match(/Image: A lighthouse at dusk/g)).toHaveLength(1);
    expect(captioned.text).toContain("Figure 1: The lighthouse");
    const named = await read(
      odt(
        `<text:p>Before<draw:frame ${draw}><draw:image/><svg:title ${svg}>image1.png</svg:title></draw:frame></text:p>`,
      ),
    );
    expect(named.text).toBe("Before");

    const deep = odt("<text:span>".repeat(20_000) + "x");
    const tooDeep = await refused(read(deep), 400, "document_too_complex");
    expect(tooDeep.message).toContain(`${LIMITS.markup.maxDepth} deep`);

    // Bookmarks become no HTML element, so the HTML converter's own count never sees them.
    const marks = odt(`<text:p>Marked${'<text:bookmark text:name="m"/>'.repeat(300_000)}</text:p>`);
    const many = await refused(read(marks), 400, "document_too_complex");
    expect(many.message).toContain(`${LIMITS.markup.maxElements.toLocaleString("en-US")} elements`);
  });
});

describe("RTF", () => {
  it("reads headings from the style sheet and the outline level", async () => {
    const doc = await read(formats("rtf-heading.rtf"));
    expect(doc.kind).toBe("rtf");
    expect(doc.text).toBe("# Heading 1\n\n## Heading 2\n\n### Heading 3\n\nParagraph");
  });

  it("reads tables, footnotes and lists (\\ls and legacy \\pntext, numbered and bulleted, nested)", async () => {
    expect((await read(formats("rtf-table_simple.rtf"))).text).toBe(
      "| A | B | C | D |\n| - | - | - | - |\n| E | F | G | H |",
    );
    const notes = await read(formats("rtf-footnote.rtf"));
    expect(notes.text).toContain("amply annotated.[\\[1\\]](#note-1) It was her work");
    expect(notes.text).toMatch(
      /1\. See Sahlins, Bateson, and Geertz for a complete bibliography\.\n2\. A complete bibliography/,
    );
    expect((await read(formats("rtf-list_simple.rtf"))).text).toBe("- one\n- two\n  - sub\n- new list");
    expect((await read(formats("rtf-list_legacy.rtf"))).text).toBe(
      "1. A\n2. Numbered\n3. List\n- A\n- Bulleted\n- List",
    );
  });

  it("decodes code pages and \\u escapes", async () => {
    const doc = await read(strToU8("{\\rtf1\\ansi\\ansicpg1252 caf\\'e9 \\u8364? na\\u239\\'efve\\par}"));
    expect(doc.text).toBe("café € naïve");
  });

  it("refuses groups nested deeper than the markup budget, in bounded memory", async () => {
    const deep = strToU8(`{\\rtf1 ${"{".repeat(2_000_000)}x`);
    const error = await refused(read(deep), 400, "document_too_complex");
    expect(error.message).toContain(`${LIMITS.markup.maxDepth}`);
  });
});

describe("E-mail", () => {
  it("detects e-mail from the bytes, and not a text that only looks like headers", async () => {
    expect(await detect(formats("eml-report-attachments.eml"), { filename: "x.txt" })).toEqual({
      kind: "email",
      format: "eml",
    });
    expect(await detect(formats("msg-htmlLink.msg"), {})).toEqual({ kind: "email", format: "msg" });
    const notes = await detect(strToU8("Title: Notes\nDate: 2026-01-01\n\nSome text."), {});
    expect(notes.kind).toBe("text");
  });

  it("reads the body and each attachment as its own part, headers and attachment names on every chunk", async () => {
    const doc = await read(formats("eml-report-attachments.eml"));
    expect(doc.kind).toBe("email");
    expect(doc.parts?.map((p) => p.attachment)).toEqual([undefined, "report.docx", "layout-notes.pdf"]);
    const headers = {
      from: "Ada Lovelace <ada@example.org>",
      to: "Charles Babbage <charles@example.org>, Mary Somerville <mary@example.org>",
      cc: "archive@example.org",
      date: "2026-03-03T10:15:00.000Z",
      subject: "Re: Quarterly report and layout notes",
    };
    for (const part of doc.parts!) expect(part.email).toEqual(headers);
    const body = doc.text.slice(doc.parts![0]!.start, doc.parts![0]!.end);
    // HTML preferred: the quoted message is a Markdown quote.
    expect(body).toMatch(/^# Re: Quarterly report and layout notes\n/);
    expect(body).toMatch(/\n> Could you send the quarterly report/);
    const docx = doc.text.slice(doc.parts![1]!.start, doc.parts![1]!.end);
    expect(docx).toMatch(/^# Quarterly field report\n/);
    expect(docx).toContain("| North mudflat | 6          | 14                  |");

    for (const tier of ["free", "structure"] as const) {
      const chunks = await chunk(doc, tier, 80);
      expect(new Set(chunks.map((c) => c.metadata.attachment))).toEqual(
        new Set([undefined, "report.docx", "layout-notes.pdf"]),
      );
      for (const c of chunks) {
        expect(c.metadata.email).toEqual(headers);
        // No chunk spans two parts.
        const part = doc.parts!.find((p) => c.metadata.start >= p.start && c.metadata.start < p.end)!;
        expect(c.metadata.end).toBeLessThanOrEqual(part.end);
        expect(c.metadata.attachment).toBe(part.attachment);
      }
      const pinecone = formatChunks(chunks, "pinecone", {
        documentId: "d",
        filename: "mail.eml",
        tier,
        maxTokens: 80,
        overlapTokens: 0,
      });
      expect(pinecone.at(-1)).toMatchObject({ email_subject: headers.subject, attachment: "layout-notes.pdf" });
    }
  });

  it("opens attached e-mails with their own headers, up to the configured depth", async () => {
    const doc = await read(formats("eml-arf.eml"));
    const nested = doc.parts!.at(-1)!;
    expect(nested.attachment).toMatch(/\.eml$/);
    expect(nested.email?.from).toBe("somespammer@example.net");
    await refused(read(formats("eml-arf.eml"), { maxEmailDepth: 0 }), 400, "document_too_complex");
  });

  it("refuses e-mails nested deeper than the limit, and attachments past the unpacked budget", async () => {
    let message = "From: a@example.org\r\nTo: b@example.org\r\nSubject: level 0\r\n\r\ninnermost\r\n";
    for (let level = 1; level <= 6; level++)
      message = `From: a@example.org\r\nTo: b@example.org\r\nSubject: level ${level}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b${level}"\r\n\r\n--b${level}\r\nContent-Type: text/plain\r\n\r\nlevel ${level}\r\n--b${level}\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment; filename="m${level}.eml"\r\n\r\n${message}\r\n--b${level}--\r\n`;
    const error = await refused(read(strToU8(message)), 400, "document_too_complex");
    expect(error.message).toContain("3 levels");
    const all = await read(strToU8(message), { maxEmailDepth: 6 });
    expect(all.parts).toHaveLength(7);
    expect(all.parts!.at(-1)!.email?.subject).toBe("level 0");

    const big = formats("eml-report-attachments.eml");
    await refused(read(big, { maxUnpackedBytes: 8 * 1024 }), 413, "zip_bomb");
  });

  it("reads Outlook .msg files: headers, body, embedded items", async () => {
    const doc = await read(formats("msg-attach-eml-received.msg"));
    expect(doc.mediaType).toBe("application/vnd.ms-outlook");
    expect(doc.parts?.[0]?.email?.subject).toBe("Attach sample.eml");
    expect(doc.parts?.[1]).toMatchObject({ attachment: "sample.msg", email: { subject: "sample" } });
    const images = await read(formats("msg-attachmentFiles.msg"));
    expect(images.text).toContain(
      "Attachments not read (a format not read here, or no text in them): jpg.jpg, png.png, tif.tif",
    );
  });
});

describe("page estimates", () => {
  it("counts one page before reading, and characters / 3000 once read", async () => {
    const bytes = formats("epub-wasteland.epub");
    const detected = await detect(bytes, {});
    expect(await estimatePages(bytes, detected, LIMITS)).toBe(1);
    const doc = await read(bytes);
    expect(doc.pageCount).toBe(Math.ceil(doc.text.length / 3000));
  });
});

describe("through the API", () => {
  let redis: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = new RedisStore({ url: redis.url });
    setServices(createServices(loadConfig({ REDIS_URL: redis.url }), { store }));
  });

  afterAll(async () => {
    setServices(undefined);
    await store?.close();
    await redis?.stop();
  });

  it("answers an e-mail's chunks with its headers and attachment names, and an EPUB's with chapters", async () => {
    const mail = await call("POST", "/api/chunk/free", {
      body: upload(formats("eml-report-attachments.eml"), "mail.eml"),
      client: "203.0.113.90",
    });
    expect(mail.status).toBe(200);
    const body = (await mail.json()) as { chunks: Chunk[] };
    expect(body.chunks.map((c) => c.metadata.attachment)).toContain("layout-notes.pdf");
    for (const c of body.chunks) expect(c.metadata.email?.subject).toBe("Re: Quarterly report and layout notes");

    const book = await call("POST", "/api/chunk/free", {
      body: upload(formats("epub-features.epub"), "book.epub"),
      client: "203.0.113.91",
    });
    expect(book.status).toBe(200);
    const chapters = ((await book.json()) as { chunks: Chunk[] }).chunks.flatMap((c) => [
      c.metadata.page_start,
      c.metadata.page_end,
    ]);
    expect(new Set(chapters)).toEqual(new Set([1, 3, 4]));

    const drm = await call("POST", "/api/chunk/free", {
      body: upload(fixtureEpubWithDrm(), "locked.epub"),
      client: "203.0.113.92",
    });
    expect(drm.status).toBe(400);
    expect(await drm.json()).toMatchObject({ success: false, code: "drm_protected" });
  });
});

function fixtureEpubWithDrm(): Uint8Array {
  return epub(
    {
      ...EPUB2_FILES,
      "META-INF/encryption.xml": `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/text/b%20two.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`,
    },
    EPUB2_OPF,
  );
}
