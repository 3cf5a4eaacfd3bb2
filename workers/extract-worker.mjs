// Runs the parsers that must not share a thread with the server: pdf.js
// leaves stray unhandled rejections behind on damaged PDFs, mammoth can
// exhaust memory on a zip bomb, and node-html-markdown slows down more than
// linearly on large pages. lib/extract/worker.ts starts one worker per
// document, sends it requests one at a time and owns every decision; each
// request here is a single library call whose answer is posted back.
import { parentPort } from "node:worker_threads";

let pdfDocument;

const handlers = {
  async "pdf-open"({ data }) {
    const { getDocumentProxy } = await load("unpdf");
    // verbosity 0: pdf.js would otherwise print warnings about damaged files to the server's log.
    pdfDocument = await getDocumentProxy(data, { verbosity: 0 });
    return { pageCount: pdfDocument.numPages };
  },

  async "pdf-text"() {
    const { extractText } = await load("unpdf");
    const { text } = await extractText(pdfDocument, { mergePages: false });
    return { pages: text };
  },

  async "docx-html"({ data }) {
    const mammoth = (await load("mammoth")).default;
    const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const result = await mammoth.convertToHtml(
      { buffer },
      // Images would come back inlined as base64; only text is kept, so never read them.
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    return { html: result.value };
  },

  async markdown({ segments, options }) {
    const { NodeHtmlMarkdown } = await load("node-html-markdown");
    const converter = new NodeHtmlMarkdown(options);
    return { markdown: segments.map((segment) => converter.translate(segment)) };
  },
};

/** A library that fails to load is our fault, not the document's: `stage` tells the two apart. */
class LoadError extends Error {}

async function load(name) {
  try {
    return await import(name);
  } catch (error) {
    throw new LoadError(`cannot load ${name}: ${error?.message ?? error}`);
  }
}

parentPort.on("message", async (request) => {
  const handler = handlers[request?.op];
  try {
    if (!handler) throw new LoadError(`unknown request ${JSON.stringify(request?.op)}`);
    parentPort.postMessage({ ok: true, ...(await handler(request)) });
  } catch (error) {
    parentPort.postMessage({
      ok: false,
      stage: error instanceof LoadError ? "load" : "document",
      name: typeof error?.name === "string" ? error.name : "Error",
      message: typeof error?.message === "string" ? error.message : String(error),
    });
  }
});
