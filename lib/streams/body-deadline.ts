import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";

/**
 * A request body read against the clock: the whole of it within
 * `timeoutMs`, and after `graceMs` at least `minBytesPerSecond` on average.
 * A client trickling a byte every few seconds is cut off within the grace
 * period instead of holding its connection (and its per-client place) for
 * as long as it likes; a stalled read is cut off too, since each read waits
 * only until the moment the rule would be broken. Node's own
 * `server.requestTimeout` is the outer bound where server.mjs runs; this one
 * also holds on hosts that give the handler a stream (Vercel).
 */
export type BodyReadRules = Config["bodyRead"];

const bodyTimeout = (rules: BodyReadRules) =>
  new ApiError(
    "body_timeout",
    `The request body arrived too slowly: it must arrive within ${rules.timeoutMs / 1000} s, and at ${rules.minBytesPerSecond / 1024} KB/s or faster after the first ${rules.graceMs / 1000} s. Retry on a faster connection, or send a URL to fetch instead of a large upload.`,
  );

/** The moment (ms after the start) by which more bytes than `received` must have arrived. */
function readBy(rules: BodyReadRules, received: number): number {
  if (rules.minBytesPerSecond <= 0) return rules.timeoutMs;
  const rateBound = Math.max(rules.graceMs, ((received + 1) / rules.minBytesPerSecond) * 1000);
  return Math.min(rules.timeoutMs, rateBound);
}

/** The body's chunks as they arrive; throws `body_timeout` (and cancels the stream) once the rules are broken. */
export async function* timedChunks(
  body: ReadableStream<Uint8Array>,
  rules: BodyReadRules,
  now: () => number = performance.now.bind(performance),
): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const start = now();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const waitMs = start + readBy(rules, received) - now();
      if (waitMs <= 0) throw bodyTimeout(rules);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), waitMs)));
      const next = await Promise.race([reader.read(), late]).finally(() => clearTimeout(timer));
      if (next === "late") throw bodyTimeout(rules);
      if (next.done) {
        finished = true;
        return;
      }
      received += next.value.length;
      // A read that ended a rate window late still counts as late: the average is what is bounded.
      if (now() - start > rules.timeoutMs) throw bodyTimeout(rules);
      yield next.value;
    }
  } finally {
    // Cancelled whatever ended the reading early (a deadline, a size limit, a parse error): the socket is let go.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The whole body, refused with `tooLarge()` as soon as more than `maxBytes` have arrived. */
export async function readBodyBytes(
  body: ReadableStream<Uint8Array> | null,
  options: { maxBytes: number; rules: BodyReadRules; tooLarge: () => ApiError },
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of timedChunks(body, options.rules)) {
    size += part.length;
    if (size > options.maxBytes) throw options.tooLarge();
    parts.push(part);
  }
  return new Uint8Array(Buffer.concat(parts));
}
