import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatChunks, OUTPUT_FORMATS } from "@/lib/formats";
import type { ApiInfo } from "@/web/api-client";
import { filterChunks, pagesLabel, toChunkViews } from "@/web/chunk-view";
import { baseName, chunksJsonl, resultJson, storeRecords } from "@/web/downloads";
import { formatBytes, formatUsdc, formatWait } from "@/web/format";
import { histogram, sizeStats } from "@/web/histogram";
import { validateOptions } from "@/web/options";
import { documentKind, pagesFromPdf, pagesFromText, visibleHtmlText, visibleRtfText } from "@/web/pages";
import { problemFromError } from "@/web/problems";
import { sourceProblem } from "@/web/source";
import type { Chunk } from "@/lib/chunking/types";

/** The page's browser-side logic (web/), on real fixtures and on records made by the service's own formatters. */

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name));

describe("page estimates before upload", () => {
  it("counts PDF page objects like the service's page count, and admits when it cannot see them", () => {
    expect(pagesFromPdf(fixture("multipage.pdf"))).toBe(4);
    expect(pagesFromPdf(fixture("structured.pdf"))).toBe(3);
    expect(pagesFromPdf(fixture("no-text.pdf"))).toBe(2);
    expect(pagesFromPdf(fixture("corrupted.pdf"))).toBeNull();
  });

  it("counts text pages as ceil(code points / 3000), at least 1", () => {
    expect(pagesFromText("")).toBe(1);
    expect(pagesFromText("a".repeat(3000))).toBe(1);
    expect(pagesFromText("a".repeat(3001))).toBe(2);
    // Emoji are one code point each though two UTF-16 units.
    expect(pagesFromText("😀".repeat(3000))).toBe(1);
  });

  it("leaves scripts, styles and markup out of an HTML estimate (navigation stays: it is an estimate)", () => {
    const text = visibleHtmlText(fixture("page.html").toString("utf8"));
    expect(text).not.toMatch(/SCRIPTMARKER|STYLEMARKER|NOSCRIPTMARKER|<|>/);
    expect(text.length).toBeGreaterThan(100);
  });

  it("tells the kinds apart by extension, then media type", () => {
    expect(documentKind("a.PDF")).toBe("pdf");
    expect(documentKind("notes.md")).toBe("text");
    expect(documentKind("x.docx")).toBe("docx");
    expect(documentKind("blob", "text/html")).toBe("html");
    expect(documentKind("scan.TIFF")).toBe("image");
    expect(documentKind("blob", "image/webp")).toBe("image");
    expect(documentKind("anim.gif", "image/gif")).toBeNull();
    expect(documentKind("book.EPUB")).toBe("epub");
    expect(documentKind("memo.odt")).toBe("odt");
    expect(documentKind("blob", "text/rtf")).toBe("rtf");
    expect(documentKind("thread.eml")).toBe("email");
    expect(documentKind("item.msg")).toBe("email");
  });

  it("leaves an RTF's fonts, colours and control words out of its estimate", () => {
    const text = visibleRtfText(fixture("formats/rtf-heading.rtf").toString("latin1"));
    expect(text).toContain("Heading 1");
    expect(text).toContain("Paragraph");
    expect(text).not.toMatch(/\\|Calibri|\{|\}/);
  });
});

const api = { limits: { max_tokens_range: [32, 8192], max_upload_bytes: 1000 } } as unknown as ApiInfo;

describe("form validation", () => {
  it("applies the service's option rules: whole numbers in range, overlap at most half", () => {
    expect(validateOptions({ maxTokens: "512", overlapTokens: "256", outputFormat: "raw" }, api)).toEqual({
      options: { max_tokens: 512, overlap_tokens: 256, output_format: "raw" },
      errors: {},
    });
    expect(validateOptions({ maxTokens: "513", overlapTokens: "256", outputFormat: "qdrant" }, api).options).toEqual({
      max_tokens: 513,
      overlap_tokens: 256,
      output_format: "qdrant",
    });
    expect(
      validateOptions({ maxTokens: "512", overlapTokens: "257", outputFormat: "raw" }, api).errors.overlapTokens,
    ).toMatch(/half/);
    expect(validateOptions({ maxTokens: "31", overlapTokens: "0", outputFormat: "raw" }, api).errors.maxTokens).toMatch(
      /32 and 8192/,
    );
    expect(validateOptions({ maxTokens: "8193", overlapTokens: "0", outputFormat: "raw" }, api).options).toBeNull();
    expect(validateOptions({ maxTokens: "12.5", overlapTokens: "", outputFormat: "raw" }, api).errors).toEqual({
      maxTokens: expect.any(String),
      overlapTokens: expect.any(String),
    });
  });

  it("refuses an oversized file before sending it, and URLs that cannot be fetched", () => {
    const file = (size: number) => new File([new Uint8Array(size)], "big.pdf");
    expect(sourceProblem({ mode: "file", file: file(1001), url: "" }, 1000)).toMatch(
      /big\.pdf is 1001 bytes; uploads can be at most 1000 bytes/,
    );
    expect(sourceProblem({ mode: "file", file: file(1000), url: "" }, 1000)).toBeNull();
    // Just over a limit that rounds the same: said in bytes.
    expect(sourceProblem({ mode: "file", file: file(25 * 1024 * 1024 + 1), url: "" }, 25 * 1024 * 1024)).toMatch(
      /is 26,214,401 bytes; uploads can be at most 26,214,400 bytes/,
    );
    expect(sourceProblem({ mode: "file", file: null, url: "" }, 1000)).toMatch(/Choose a document/);
    expect(sourceProblem({ mode: "url", file: null, url: "example.com/a.pdf" }, 1000)).toMatch(
      /not a complete web address/,
    );
    expect(sourceProblem({ mode: "url", file: null, url: "ftp://example.com/a.pdf" }, 1000)).toMatch(/Only http/);
    expect(sourceProblem({ mode: "url", file: null, url: " https://example.com/a.pdf " }, 1000)).toBeNull();
  });
});

describe("the chunk list reads every output format", () => {
  const chunks: Chunk[] = [
    {
      text: "Alpha Corp hired Ada Lovelace in London.",
      metadata: {
        chunk_index: 0,
        char_count: 40,
        start: 0,
        end: 40,
        token_count: 9,
        page_start: 2,
        page_end: 3,
        boxes: [
          { page: 2, x0: 0.1, y0: 0.85, x1: 0.9, y1: 0.87 },
          { page: 3, x0: 0.1, y0: 0.05, x1: 0.45, y1: 0.07 },
        ],
        ocr_confidence: 93.4,
        headings: ["Guide", "Install"],
        summary: "A hiring.",
        entities: [
          { text: "Ada Lovelace", type: "people" },
          { text: "London", type: "places" },
        ],
      },
    },
    {
      text: "Plain second chunk: no extras 😀",
      metadata: { chunk_index: 1, char_count: 31, start: 35, end: 68, token_count: 7 },
    },
  ];
  const doc = { documentId: "d".repeat(64), filename: "a.pdf", tier: "ai-pro", maxTokens: 512, overlapTokens: 64 };

  for (const format of OUTPUT_FORMATS) {
    it(`${format}: text, numbers, pages, boxes, section path, summary and entities`, () => {
      const [first, second] = toChunkViews(formatChunks(chunks, format, doc), format);
      expect(first).toMatchObject({
        index: 0,
        text: chunks[0]!.text,
        tokens: 9,
        characters: 40,
        pageStart: 2,
        pageEnd: 3,
        headings: ["Guide", "Install"],
        summary: "A hiring.",
        ocrConfidence: 93.4,
      });
      // Objects in raw, Weaviate and Qdrant records, a JSON string in Pinecone's and Chroma's.
      expect(first!.boxes).toEqual(chunks[0]!.metadata.boxes);
      expect(first!.entities).toEqual([
        { text: "Ada Lovelace", type: "people" },
        { text: "London", type: "places" },
      ]);
      expect(second).toMatchObject({
        index: 1,
        text: chunks[1]!.text,
        tokens: 7,
        characters: 31,
        headings: [],
        entities: [],
        boxes: [],
      });
      expect(second!.pageStart).toBeUndefined();
      if (format === "raw") expect(first!.recordId).toBeUndefined();
      else expect(first!.recordId).toMatch(/\S{10,}/);
      expect(pagesLabel(first!)).toBe("pp. 2–3");
      expect(filterChunks([first!, second!], "LOVELACE").map((c) => c.index)).toEqual([0]);
      expect(filterChunks([first!, second!], "install").map((c) => c.index)).toEqual([0]);
      expect(filterChunks([first!, second!], "  ")).toHaveLength(2);
      expect(filterChunks([first!, second!], "nothing like this")).toHaveLength(0);
    });
  }
});

describe("downloads", () => {
  const result = {
    success: true as const,
    tier: "free" as const,
    total_chunks: 2,
    metadata: {
      filename: "My report (final).pdf",
      content_type: "text/markdown",
      estimated_pages: 1,
      method: "recursive",
      output_format: "qdrant" as const,
    },
    payment: { amount: 0, asset: "USDC" as const, network: "solana-localnet", transaction: null },
  };
  const records = [
    { id: "a", payload: { text: "one\ntwo" } },
    { id: "b", payload: { text: "three" } },
  ];

  it("writes the whole result, one record per JSONL line, and the store's records", () => {
    expect(baseName("C:\\docs\\My report (final).pdf")).toBe("My-report-final");
    const json = resultJson(result, records);
    expect(json.filename).toBe("My-report-final.free.chunks.json");
    expect(JSON.parse(json.content)).toEqual({ ...result, chunks: records });
    const lines = chunksJsonl(result, records).content.trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
    expect(storeRecords(result, records)?.filename).toBe("My-report-final.free.qdrant.json");
    expect(storeRecords({ ...result, metadata: { ...result.metadata, output_format: "raw" } }, records)).toBeNull();
  });
});

describe("numbers and messages", () => {
  it("bins sizes up to max_tokens and keeps every chunk", () => {
    const sizes = [1, 40, 43, 44, 300, 512, 600];
    const bins = histogram(sizes, 512, 12);
    expect(bins[0]).toEqual({ from: 1, to: 43, count: 3 });
    expect(bins.at(-1)!.to).toBe(512);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(sizes.length);
    expect(sizeStats([5, 1, 3, 9])).toEqual({ min: 1, median: 4, max: 9, mean: 5 });
  });

  it("formats sizes, USDC and waits", () => {
    expect(formatBytes(900)).toBe("900 bytes");
    expect(formatBytes(2.5 * 1024 * 1024)).toBe("2.5 MB");
    expect(formatBytes(25 * 1024 * 1024)).toBe("25 MB");
    expect(formatUsdc(2000)).toBe("0.002");
    expect(formatUsdc(1_250_000)).toBe("1.25");
    expect(formatWait(3600 * 3 + 20 * 60, 0)).toBe("in 3 h 20 min");
  });

  it("says when free pages come back on a 429, from the rate-limit headers", () => {
    const now = Date.UTC(2026, 0, 1, 21, 0);
    const problem = problemFromError(
      429,
      { code: "free_quota_exceeded", message: "No free pages are left today." },
      { rateLimit: { limit: 100, remaining: 0, reset: Date.UTC(2026, 0, 2) / 1000 }, nowMs: now },
    );
    expect(problem.title).toBe("No free pages left today");
    expect(problem.hint).toMatch(/\(in 3 h\)/);
    const partial = problemFromError(
      429,
      { code: "free_quota_exceeded", message: "This document has 10 page(s) and 2 free page(s) are left today." },
      { rateLimit: { limit: 12, remaining: 2, reset: Date.UTC(2026, 0, 2) / 1000 }, nowMs: now },
    );
    expect(partial.title).toBe("Not enough free pages left today");
    expect(problemFromError(415, { code: "unsupported_type", message: "PNG is not supported." }).message).toBe(
      "PNG is not supported.",
    );
  });
});
