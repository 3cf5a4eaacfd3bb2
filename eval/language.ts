/**
 * Language detection on short chunks: the share of windows of the UDHR
 * (eval/language-samples.ts) in each of 24 languages that `detectLanguage`
 * names right, at 50, 100 and 200 characters; "none" counts the windows it
 * left undetermined (no `language` field), which are not right either.
 */
import { performance } from "node:perf_hooks";
import { detectLanguage, loadLanguageDetector } from "@/lib/language/detect";
import { UDHR_LANGUAGES, udhrText, windows } from "./language-samples";

export const LANGUAGE_WINDOW_SIZES = [50, 100, 200];
const WINDOWS_PER_SIZE = 40;

export async function languageSection(): Promise<string> {
  await loadLanguageDetector();
  const header = `| language | ${LANGUAGE_WINDOW_SIZES.map((n) => `${n} chars`).join(" | ")} | none (${LANGUAGE_WINDOW_SIZES.join("/")}) |`;
  const lines = [header, `|---|${LANGUAGE_WINDOW_SIZES.map(() => "---:").join("|")}|---:|`];
  const right = LANGUAGE_WINDOW_SIZES.map(() => 0);
  const total = LANGUAGE_WINDOW_SIZES.map(() => 0);
  let ms = 0;
  let calls = 0;
  for (const [language, code] of Object.entries(UDHR_LANGUAGES)) {
    const text = udhrText(code);
    const cells: string[] = [];
    const none: number[] = [];
    LANGUAGE_WINDOW_SIZES.forEach((size, k) => {
      const samples = windows(text, size, WINDOWS_PER_SIZE);
      let ok = 0;
      let undetermined = 0;
      for (const sample of samples) {
        const started = performance.now();
        const found = detectLanguage(sample);
        ms += performance.now() - started;
        calls++;
        if (found === language) ok++;
        if (found === undefined) undetermined++;
      }
      right[k]! += ok;
      total[k]! += samples.length;
      cells.push(`${((100 * ok) / samples.length).toFixed(0)}%`);
      none.push(undetermined);
    });
    lines.push(`| ${language} | ${cells.join(" | ")} | ${none.join("/")} |`);
  }
  lines.push(`| **all** | ${right.map((r, k) => `**${((100 * r) / total[k]!).toFixed(1)}%**`).join(" | ")} | |`);
  return (
    `### Language detection on short chunks\n\n` +
    `\`metadata.language\` (eld, medium data set) on ${WINDOWS_PER_SIZE} windows per size of the Universal Declaration of Human Rights ` +
    `in each language (the \`udhr\` package), starting at a word: the share named right (ISO 639-1). ` +
    `${(ms / calls).toFixed(2)} ms a window on average.\n\n${lines.join("\n")}\n`
  );
}
