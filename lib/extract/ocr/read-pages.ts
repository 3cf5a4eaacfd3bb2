import { failures } from "@/lib/extract/failures";
import type { OcrPage, PageImage } from "@/lib/extract/page-items";
import { PAGES_AT_ONCE } from "@/lib/extract/ocr/settings";
import type { ExtractSteps } from "@/lib/extract/steps";

/**
 * OCR of `count` page images, made one after another by `image` (a PDF page
 * rendered, an image's page decoded) while up to PAGES_AT_ONCE earlier ones
 * are read: making a page (~1 s for a scan rendered by pdf.js) overlaps
 * reading the last ones (~5 s each) instead of preceding them all. At most
 * PAGES_AT_ONCE + 1 images are held at once. Past `deadline` (a
 * performance.now() time) no further page is started: 400
 * document_too_complex. The first failure ends the reading. Each page read
 * is reported to `steps.onPageRead` (a job's progress). An async job's pages
 * are kept in `steps.pages` as they are read, and one read before is taken
 * from there; in a job's slice (`steps.slice`) no page is started that would
 * not end in its time: the slice ends (SliceEnd) once the pages running are
 * read and kept.
 */
export async function readPages(
  count: number,
  image: (k: number) => Promise<PageImage>,
  steps: Pick<ExtractSteps, "ocr" | "onPageRead" | "pages" | "slice">,
  deadline: number,
): Promise<OcrPage[]> {
  let read = 0;
  const pages: Promise<OcrPage>[] = [];
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const { slice, pages: memo } = steps;
  // A job's page is stored before it counts as read: a slice that ends after it never reads it again.
  const readAndKeep = async (k: number, made: PageImage) => {
    const done = await steps.ocr(made);
    await memo?.put(k, done);
    return done;
  };
  // Fetched together, not one round trip after another: a late slice of a long scan finds hundreds kept.
  const kept = memo ? await memo.getMany(Array.from({ length: count }, (_, k) => k)) : [];
  for (let k = 0; k < count; k++) {
    const stored = kept[k];
    if (stored) {
      pages.push(Promise.resolve(stored));
      steps.onPageRead?.(++read, count);
      continue;
    }
    // Not even rendered when it could not be read in this slice's time.
    if (slice && !slice.fits()) {
      await Promise.allSettled(pages);
      if (failure) throw failure.error;
      await slice.end();
    }
    const next = await image(k);
    while (running.size >= PAGES_AT_ONCE) await Promise.race(running);
    if (failure) throw failure.error;
    if (performance.now() > deadline) throw failures.tooComplex("time");
    const page = (slice ? slice.unit(() => readAndKeep(k, next)) : readAndKeep(k, next)).then((done) => {
      steps.onPageRead?.(++read, count);
      return done;
    });
    // Handled here, so a page that fails while the next is being made is no unhandled rejection.
    const settled = page.then(
      () => undefined,
      (error: unknown) => void (failure ??= { error }),
    );
    running.add(settled);
    void settled.then(() => running.delete(settled));
    pages.push(page);
  }
  return Promise.all(pages);
}
