"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { ChunkView, ChunkBox } from "@/web/chunk-view";
import { drawPdfPage } from "@/web/pdf-page";
import { plural } from "@/web/format";

/** What a page preview can draw: a PDF through pdf.js, an image as the browser shows it (TIFF it cannot). */
export const PREVIEWABLE_TYPES = new Set(["application/pdf", "image/png", "image/jpeg", "image/webp"]);

interface Props {
  file: File;
  contentType: string;
  chunk: ChunkView;
  onClose: () => void;
}

/** On-screen width the page is drawn for; the dialog scales it down on narrow screens. */
const PAGE_CSS_WIDTH = 760;

/**
 * A chunk where it came from: its page drawn in a modal dialog with the
 * chunk's lines highlighted from its `boxes`. A chunk across pages steps
 * through them (buttons, or the arrow keys). Escape or Close ends it; the
 * opener gets the focus back (ResultView).
 */
export function PagePreview({ file, contentType, chunk, onClose }: Props) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const pages = useMemo(() => [...new Set(chunk.boxes.map((box) => box.page))].sort((a, b) => a - b), [chunk]);
  const [at, setAt] = useState(0);
  const page = pages[at] ?? chunk.pageStart ?? 1;
  const boxes = chunk.boxes.filter((box) => box.page === page);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const step = (by: number) => setAt((current) => Math.min(pages.length - 1, Math.max(0, current + by)));
  return (
    <dialog
      ref={dialogRef}
      aria-labelledby={titleId}
      onClose={onClose}
      onKeyDown={(event) => {
        if (event.key === "ArrowRight") step(1);
        else if (event.key === "ArrowLeft") step(-1);
      }}
      className="m-auto w-[min(100vw-1rem,52rem)] max-w-none rounded-xl border border-line bg-surface p-0 text-fg shadow-xl backdrop:bg-black/50"
      data-testid="page-preview"
    >
      <div className="flex flex-wrap items-center gap-3 border-b border-line px-4 py-3">
        <div className="min-w-0 flex-1">
          <h2 id={titleId} className="text-base font-semibold">
            Chunk #{chunk.index} on page {page}
          </h2>
          <p className="text-sm text-muted">
            {plural(boxes.length, "line")} highlighted
            {chunk.ocrConfidence !== undefined ? `; read by OCR, confidence ${Math.round(chunk.ocrConfidence)}%` : ""}
          </p>
        </div>
        {pages.length > 1 ? (
          <div role="group" aria-label="The chunk's pages" className="flex items-center gap-2 text-sm">
            <button
              type="button"
              onClick={() => step(-1)}
              disabled={at === 0}
              className="rounded-md border border-line px-2.5 py-1 font-medium hover:bg-surface-2 disabled:opacity-50"
            >
              Previous page
            </button>
            <span className="tabular-nums text-muted">
              {at + 1} of {pages.length}
            </span>
            <button
              type="button"
              onClick={() => step(1)}
              disabled={at === pages.length - 1}
              className="rounded-md border border-line px-2.5 py-1 font-medium hover:bg-surface-2 disabled:opacity-50"
            >
              Next page
            </button>
          </div>
        ) : null}
        <button
          type="button"
          onClick={() => dialogRef.current?.close()}
          className="rounded-md border border-line px-3 py-1 text-sm font-medium hover:bg-surface-2"
        >
          Close
        </button>
      </div>
      {/* Focusable, so a keyboard can scroll a page taller than the screen. */}
      <div
        tabIndex={0}
        role="region"
        aria-label={`Page ${page}`}
        className="max-h-[75vh] overflow-auto bg-surface-2 p-3"
      >
        <PageWithBoxes
          key={page}
          file={file}
          contentType={contentType}
          page={page}
          boxes={boxes}
          label={`Page ${page} of ${file.name}, with the lines of chunk #${chunk.index} highlighted`}
        />
      </div>
    </dialog>
  );
}

interface PageProps {
  file: File;
  contentType: string;
  page: number;
  boxes: ChunkBox[];
  label: string;
}

/** The page (canvas or image) with a highlight over each box, placed in shares of the page so any size fits. */
function PageWithBoxes({ file, contentType, page, boxes, label }: PageProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const firstBoxRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<"drawing" | "drawn" | "failed">("drawing");
  const imageUrl = useMemo(
    () => (contentType === "application/pdf" ? null : URL.createObjectURL(file)),
    [file, contentType],
  );

  useEffect(() => () => void (imageUrl && URL.revokeObjectURL(imageUrl)), [imageUrl]);
  useEffect(() => {
    if (imageUrl) return;
    const drawing = new AbortController();
    drawPdfPage(file, page, canvasRef.current!, PAGE_CSS_WIDTH, drawing.signal).then(
      () => setState("drawn"),
      () => !drawing.signal.aborted && setState("failed"),
    );
    return () => drawing.abort();
  }, [file, page, imageUrl]);
  // The chunk's first line in view, once there is a page under it.
  useEffect(() => {
    if (state === "drawn") firstBoxRef.current?.scrollIntoView({ block: "center" });
  }, [state]);

  if (state === "failed")
    return (
      <p role="alert" className="p-6 text-center text-sm">
        Page {page} could not be drawn in this browser. The chunk&apos;s boxes are in its metadata.
      </p>
    );
  return (
    <div className="relative mx-auto w-full" style={{ maxWidth: PAGE_CSS_WIDTH }} aria-busy={state === "drawing"}>
      {imageUrl ? (
        // eslint-disable-next-line @next/next/no-img-element -- a local blob the user chose, not an asset to optimise.
        <img
          src={imageUrl}
          alt={label}
          onLoad={() => setState("drawn")}
          onError={() => setState("failed")}
          className="block h-auto w-full bg-white"
        />
      ) : (
        <canvas ref={canvasRef} role="img" aria-label={label} className="block h-auto w-full bg-white" />
      )}
      {state === "drawn"
        ? boxes.map((box, i) => (
            <div
              key={i}
              ref={i === 0 ? firstBoxRef : undefined}
              aria-hidden="true"
              data-testid="chunk-box"
              className="pointer-events-none absolute rounded-sm bg-amber-300/35 outline outline-2 outline-amber-500 mix-blend-multiply"
              style={{
                left: `${box.x0 * 100}%`,
                top: `${box.y0 * 100}%`,
                width: `${(box.x1 - box.x0) * 100}%`,
                height: `${(box.y1 - box.y0) * 100}%`,
              }}
            />
          ))
        : null}
    </div>
  );
}
