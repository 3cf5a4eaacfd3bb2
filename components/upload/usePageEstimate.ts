"use client";

import { useEffect, useState } from "react";
import { type PageEstimate, estimatePages } from "@/web/pages";

/** The chosen file's page estimate; null while reading it (or with no file). Reading a 25 MB file takes a moment, so it is async. */
export function usePageEstimate(file: File | null): PageEstimate | null {
  const [estimate, setEstimate] = useState<{ file: File; value: PageEstimate } | null>(null);
  useEffect(() => {
    if (!file) return;
    let current = true;
    estimatePages(file).then(
      (value) => current && setEstimate({ file, value }),
      () =>
        current && setEstimate({ file, value: { kind: "after-upload", reason: "The file could not be read here" } }),
    );
    return () => {
      current = false;
    };
  }, [file]);
  return file && estimate?.file === file ? estimate.value : null;
}
