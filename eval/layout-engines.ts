import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { convert } from "@opendataloader/pdf";
import pdf2md from "@opendocsg/pdf2md";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extract } from "@/lib/extract";
import type { ExtractSteps } from "@/lib/extract/steps";
import type { Extracted, ExtractLimits } from "@/lib/extract/types";

/**
 * The engines compared on the layout set, each given the same PDF bytes:
 * Chunkwise's own extraction, opendataloader-pdf (Java, through its npm
 * wrapper) and pdf2md (JavaScript, on pdf.js).
 */

export interface LayoutFile {
  id: string;
  pdf: Uint8Array;
  pages: number;
  /** Files in one group are converted in one batch by engines that take batches (opendataloader's JVM). */
  group: string;
}

export interface EngineOutput {
  markdown: string;
  /** Chunkwise's own result, chunked as the API chunks it. */
  extracted?: Extracted;
  seconds: number;
  error?: string;
}

export interface Engine {
  id: string;
  label: string;
  note: string;
  convert: (files: LayoutFile[]) => Promise<Map<string, EngineOutput>>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]!;

export function chunkwiseEngine(limits: ExtractLimits, steps: ExtractSteps): Engine {
  return {
    id: "chunkwise",
    label: "Chunkwise",
    note: "lib/extract extract() on the bytes, layout and OCR steps on a CpuPool of two threads (as the service runs them); one file at a time",
    async convert(files) {
      const out = new Map<string, EngineOutput>();
      for (const file of files) {
        const started = performance.now();
        try {
          const extracted = await extract(file.pdf.slice(), {}, limits, steps);
          out.set(file.id, { markdown: extracted.text, extracted, seconds: (performance.now() - started) / 1000 });
        } catch (error) {
          out.set(file.id, { markdown: "", seconds: (performance.now() - started) / 1000, error: message(error) });
        }
      }
      return out;
    },
  };
}

export const pdf2mdEngine: Engine = {
  id: "pdf2md",
  label: "pdf2md 0.2.1",
  note:
    "@opendocsg/pdf2md 0.2.1 in this process, one file at a time (0.2.4 to 0.3.2, on unpdf 1.x, never settle here: " +
    "their font lookup waits on pdf.js objects that are never resolved, and Node exits with nothing written)",
  async convert(files) {
    const out = new Map<string, EngineOutput>();
    for (const file of files) {
      const started = performance.now();
      try {
        const markdown = await pdf2md(file.pdf.slice());
        out.set(file.id, { markdown, seconds: (performance.now() - started) / 1000 });
      } catch (error) {
        out.set(file.id, { markdown: "", seconds: (performance.now() - started) / 1000, error: message(error) });
      }
    }
    return out;
  },
};

/** opendataloader-pdf as opendataloader-bench runs it: Markdown, `--table-method cluster`, no images. */
export const ODL_OPTIONS = { format: "markdown", tableMethod: "cluster", imageOutput: "off", quiet: true } as const;

/**
 * opendataloader-pdf takes many files in one JVM. Each group of files is one
 * call; the time of a call on a one-page, one-word PDF (the JVM's start and
 * warm-up, measured after a first call) is taken off each call, and the rest
 * shared among the group's files by pages.
 */
export const opendataloaderEngine: Engine = {
  id: "opendataloader",
  label: "opendataloader-pdf 2.5",
  note:
    "@opendataloader/pdf (Java 17 CLI) with opendataloader-bench's options (markdown, table method cluster, no images); " +
    "one JVM per group of files, the JVM's start (a call on a one-word page) taken off, the rest shared by pages",
  async convert(files) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "layout-odl-"));
    const out = new Map<string, EngineOutput>();
    try {
      const tiny = await PDFDocument.create();
      const font = await tiny.embedFont(StandardFonts.Helvetica);
      tiny.addPage([595, 842]).drawText("Start", { x: 72, y: 760, size: 12, font });
      const tinyFile = path.join(dir, "start.pdf");
      fs.writeFileSync(tinyFile, await tiny.save());
      const timed = async (inputs: string[], outputDir: string) => {
        const started = performance.now();
        await convert(inputs, { ...ODL_OPTIONS, outputDir });
        return (performance.now() - started) / 1000;
      };
      await timed([tinyFile], path.join(dir, "warm"));
      const startup = await timed([tinyFile], path.join(dir, "start"));
      const groups = new Map<string, LayoutFile[]>();
      for (const file of files) groups.set(file.group, [...(groups.get(file.group) ?? []), file]);
      for (const [group, members] of groups) {
        const input = path.join(dir, `in-${groups.size}-${[...groups.keys()].indexOf(group)}`);
        const output = `${input}-out`;
        fs.mkdirSync(input, { recursive: true });
        const inputs = members.map((f) => {
          const file = path.join(input, `${f.id.replace(/[^\w-]/g, "_")}.pdf`);
          fs.writeFileSync(file, f.pdf);
          return file;
        });
        let seconds = 0;
        let error: string | undefined;
        try {
          seconds = Math.max(0, (await timed(inputs, output)) - startup);
        } catch (e) {
          error = message(e);
        }
        const pages = members.reduce((n, f) => n + f.pages, 0);
        members.forEach((f, k) => {
          const md = path.join(output, `${path.basename(inputs[k]!, ".pdf")}.md`);
          const markdown = fs.existsSync(md) ? fs.readFileSync(md, "utf8") : "";
          out.set(f.id, {
            markdown,
            seconds: (seconds * f.pages) / pages,
            ...(error || !fs.existsSync(md) ? { error: error ?? "no output file" } : {}),
          });
        });
      }
      return out;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
