/**
 * Section boundaries found by a model: the text is cut into numbered units
 * (units.ts), runs of units go to the model in overlapping windows, and each
 * answers which of its units start a new section.
 *
 * Windows overlap so that a boundary near one window's edge is judged, by
 * the next window, with context on both sides. Each unit is decided by the
 * window in which it sits furthest from an edge (the first half of an
 * overlap by the earlier window, the second half by the later), or by the
 * other window covering it when its own failed.
 *
 * A window whose answers never fit the schema decides nothing: the units no
 * working window covers are left to the structure splitter, and the outcome
 * lists them as `fallback`. A provider failure (ApiError 503) stops all
 * windows and fails the call.
 */
import pLimit from "p-limit";
import { BadReplyError, type ModelClient } from "./model-client";
import { SECTION_STARTS_TASK, sectionStartsMessage, showUnit } from "./prompts";
import { boundaryUnits, type Unit } from "./units";

export interface WindowShape {
  /** Most units per window. */
  maxUnits: number;
  /** Most characters of units (as shown to the model) per window. */
  maxChars: number;
  /** Units each window shares with the next. */
  overlapUnits: number;
}

const DEFAULT_WINDOWS: WindowShape = { maxUnits: 100, maxChars: 20_000, overlapUnits: 8 };

/** Units `from` .. `to` - 1. */
export interface Window {
  from: number;
  to: number;
}

/** Consecutive windows over `units` of the given shape, each overlapping the next (a window always advances by at least one unit). */
export function planWindows(shown: readonly string[], shape: WindowShape): Window[] {
  const windows: Window[] = [];
  for (let from = 0; from < shown.length;) {
    let to = from;
    let chars = 0;
    while (
      to < shown.length &&
      to - from < shape.maxUnits &&
      (to === from || chars + shown[to]!.length <= shape.maxChars)
    )
      chars += shown[to++]!.length;
    windows.push({ from, to });
    if (to >= shown.length) break;
    from = Math.max(from + 1, to - Math.min(shape.overlapUnits, Math.floor((to - from) / 2)));
  }
  return windows;
}

/** For each unit, the windows that may decide it, best first (the one it sits most centrally in). */
export function decidingWindows(windows: readonly Window[], units: number): number[][] {
  const choices: number[][] = Array.from({ length: units }, () => []);
  windows.forEach((w, k) => {
    for (let u = w.from; u < w.to; u++) choices[u]!.push(k);
  });
  return choices.map((covering, u) =>
    covering.sort((a, b) => edgeDistance(windows[b]!, u) - edgeDistance(windows[a]!, u) || a - b),
  );
}

const edgeDistance = (w: Window, u: number) => Math.min(u - w.from, w.to - 1 - u);

/** Which units start a section, merged from the windows' answers (null: the window failed). */
export function mergeAnswers(
  windows: readonly Window[],
  answers: ReadonlyArray<ReadonlySet<number> | null>,
  units: number,
): { starts: boolean[]; undecided: boolean[] } {
  const choices = decidingWindows(windows, units);
  const starts = new Array<boolean>(units).fill(false);
  const undecided = new Array<boolean>(units).fill(false);
  choices.forEach((covering, u) => {
    const decider = covering.find((k) => answers[k] !== null);
    if (decider === undefined) undecided[u] = true;
    else starts[u] = answers[decider]!.has(u);
  });
  return { starts, undecided };
}

interface FallbackRange {
  /** Character offsets of the text the structure splitter alone decided. */
  start: number;
  end: number;
  reason: string;
}

export interface Boundaries {
  /** Character offsets where the model starts a new section (the first unit excluded), ascending. */
  sectionStarts: number[];
  units: number;
  windows: number;
  fallback: FallbackRange[];
}

export interface FindOptions {
  concurrency: number;
  shape?: WindowShape;
  /** Called after each window's call, with the count done and the count in all. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/** The units and windows of `text`, known before any call (a job's progress needs the count). */
function planBoundaries(
  text: string,
  shape: WindowShape = DEFAULT_WINDOWS,
): { units: Unit[]; windows: Window[]; shown: string[] } {
  const units = boundaryUnits(text);
  const shown = units.map((u) => showUnit(text.slice(u.start, u.end)));
  return { units, shown, windows: planWindows(shown, shape) };
}

export async function findBoundaries(text: string, model: ModelClient, options: FindOptions): Promise<Boundaries> {
  const { units, shown, windows } = planBoundaries(text, options.shape);
  if (units.length <= 1) return { sectionStarts: [], units: units.length, windows: 0, fallback: [] };

  const limit = pLimit(options.concurrency);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const reasons: string[] = [];
  let done = 0;
  options.onProgress?.(0, windows.length);
  const ask = async (w: Window, k: number): Promise<Set<number> | null> => {
    try {
      // Shown numbered from 1; answers are checked against the window's own range.
      const answer = await model.ask(
        SECTION_STARTS_TASK,
        sectionStartsMessage(shown.slice(w.from, w.to), w.from + 1),
        signal,
      );
      return new Set(answer.starts.map((n) => n - 1).filter((u) => u >= w.from && u < w.to));
    } catch (error) {
      if (!(error instanceof BadReplyError)) throw error;
      reasons[k] = error.message;
      return null;
    } finally {
      options.onProgress?.(++done, windows.length);
    }
  };

  let answers: Array<Set<number> | null>;
  try {
    answers = await Promise.all(windows.map((w, k) => limit(() => ask(w, k))));
  } catch (error) {
    // One window's provider failure fails the whole: stop the rest instead of paying for them.
    limit.clearQueue();
    stop.abort();
    throw error;
  }

  const { starts, undecided } = mergeAnswers(windows, answers, units.length);
  const sectionStarts: number[] = [];
  for (let u = 1; u < units.length; u++) if (starts[u] && !undecided[u]) sectionStarts.push(units[u]!.start);
  return {
    sectionStarts,
    units: units.length,
    windows: windows.length,
    fallback: fallbackRanges(units, windows, answers, undecided, reasons),
  };
}

/** Runs of undecided units as text ranges, each with the reason its window gave. */
function fallbackRanges(
  units: Unit[],
  windows: Window[],
  answers: Array<Set<number> | null>,
  undecided: boolean[],
  reasons: string[],
): FallbackRange[] {
  const ranges: FallbackRange[] = [];
  for (let u = 0; u < units.length; u++) {
    if (!undecided[u]) continue;
    let v = u;
    while (v + 1 < units.length && undecided[v + 1]) v++;
    const failed = windows.findIndex((w, k) => answers[k] === null && w.from <= u && u < w.to);
    ranges.push({
      start: units[u]!.start,
      end: units[v]!.end,
      reason: reasons[failed] ?? "the model's answer was unusable",
    });
    u = v;
  }
  return ranges;
}
