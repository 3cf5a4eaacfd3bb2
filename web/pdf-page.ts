import type { getDocumentProxy } from "unpdf";

type PDFDocumentProxy = Awaited<ReturnType<typeof getDocumentProxy>>;

/**
 * A page of a PDF the user chose, drawn in the browser by pdf.js (unpdf's
 * build, loaded the first time a page is shown, so the home page never pays
 * for it). The document is parsed once per file.
 */
const documents = new WeakMap<Blob, Promise<PDFDocumentProxy>>();

function openDocument(file: Blob): Promise<PDFDocumentProxy> {
  let opened = documents.get(file);
  if (!opened) {
    opened = (async () => {
      const { getDocumentProxy } = await import("unpdf");
      return getDocumentProxy(new Uint8Array(await file.arrayBuffer()));
    })();
    // A file that failed to open may be tried again.
    opened.catch(() => documents.delete(file));
    documents.set(file, opened);
  }
  return opened;
}

/**
 * Draws page `number` of `file` on `canvas`, `cssWidth` pixels wide on screen
 * (sharp on high-density screens), turned as the page says; the drawing stops
 * when `signal` aborts (another page was asked for).
 */
export async function drawPdfPage(
  file: Blob,
  number: number,
  canvas: HTMLCanvasElement,
  cssWidth: number,
  signal: AbortSignal,
): Promise<void> {
  const pdf = await openDocument(file);
  const page = await pdf.getPage(number);
  const scale = (cssWidth / page.getViewport({ scale: 1 }).width) * Math.min(2, window.devicePixelRatio || 1);
  const viewport = page.getViewport({ scale });
  canvas.width = Math.round(viewport.width);
  canvas.height = Math.round(viewport.height);
  const context = canvas.getContext("2d");
  if (!context) throw new Error("This browser cannot draw on a canvas.");
  const task = page.render({ canvas, canvasContext: context, viewport });
  const cancel = () => task.cancel();
  signal.addEventListener("abort", cancel, { once: true });
  try {
    await task.promise;
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}
