"use client";

import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useLayoutEffect, useRef, useState } from "react";
import type { OutputFormat } from "@/web/api-client";
import type { ChunkView } from "@/web/chunk-view";
import { ChunkCard } from "./ChunkCard";

/** A guess for rows not measured yet; each row is measured once rendered. */
const ESTIMATED_ROW_PX = 240;
const GAP_PX = 12;

interface Props {
  chunks: readonly ChunkView[];
  /** Of the whole result, for each row's position in the set (aria-setsize). */
  format: OutputFormat;
  announce: (message: string) => void;
  onShowOnPage?: (chunk: ChunkView, opener: HTMLElement) => void;
}

/**
 * The chunks, virtualised against the window's scroll (one scrollbar on the
 * page, natural on phones): only the rows near the viewport are in the DOM,
 * each measured after render, so thousands of chunks of any length stay
 * smooth. Expanded rows are remembered by chunk index, so they stay
 * expanded when they scroll out and back in.
 */
export function ChunkList({ chunks, format, announce, onShowOnPage }: Props) {
  const listRef = useRef<HTMLOListElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());

  // The list's distance from the top of the document moves when anything above it changes size.
  useLayoutEffect(() => {
    const measure = () => {
      const list = listRef.current;
      if (list) setScrollMargin(Math.round(list.getBoundingClientRect().top + window.scrollY));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: chunks.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 4,
    gap: GAP_PX,
    scrollMargin,
    getItemKey: (i) => chunks[i]?.index ?? i,
  });

  const onToggle = useCallback((index: number) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  }, []);

  const items = virtualizer.getVirtualItems();
  return (
    <ol ref={listRef} aria-label="Chunks" className="relative" style={{ height: virtualizer.getTotalSize() }}>
      {items.map((item) => {
        const chunk = chunks[item.index]!;
        return (
          <li
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            aria-setsize={chunks.length}
            aria-posinset={item.index + 1}
            className="absolute inset-x-0 top-0"
            style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
          >
            <ChunkCard
              chunk={chunk}
              format={format}
              expanded={expanded.has(chunk.index)}
              onToggle={onToggle}
              announce={announce}
              onShowOnPage={onShowOnPage}
            />
          </li>
        );
      })}
    </ol>
  );
}
