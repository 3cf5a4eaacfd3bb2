import { pino, type Logger } from "pino";
import { logLevelFrom } from "@/lib/ground/config";
import { currentScope } from "@/lib/observability/request-scope";

/**
 * The service's one logger: JSON lines (pino) on standard output, each with the request id of the request it
 * belongs to (lib/observability/request-scope.ts). Level from LOG_LEVEL. What happens is logged as an event
 * (`event`, lib/observability/events.ts); faults as `error` with the error.
 *
 * Never logged: secret keys, payment headers (X-PAYMENT, PAYMENT-SIGNATURE carry whole signed transactions),
 * document text. The redaction below is a second line behind not passing them at all.
 */

/** Where the lines go: standard output, or a test's capture. */
export interface LogSink {
  write: (line: string) => void;
}

// On globalThis because Next.js may instantiate this module once per route bundle: one logger, one sink.
const holder = globalThis as typeof globalThis & { __chunkwiseLogger?: Logger; __chunkwiseLogSink?: LogSink };

/** For tests: sends the lines to `next` until the returned function is called. */
export function redirectLogs(next: LogSink): () => void {
  const before = holder.__chunkwiseLogSink;
  holder.__chunkwiseLogSink = next;
  return () => {
    holder.__chunkwiseLogSink = before;
  };
}

const REDACTED = [
  "secret",
  "secretKey",
  "feePayerSecretKey",
  "authorization",
  '["x-payment"]',
  '["payment-signature"]',
];

function createLogger(): Logger {
  return pino(
    {
      level: logLevelFrom(),
      base: { service: "chunkwise" },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Levels as words: hosts' log viewers (Vercel's among them) filter on them.
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const scope = currentScope();
        return scope ? { request_id: scope.requestId } : {};
      },
      // At the top and one level down (pino's paths; bracketed where a key is not an identifier).
      redact: {
        paths: [...REDACTED, ...REDACTED.map((key) => (key.startsWith("[") ? `*${key}` : `*.${key}`))],
        censor: "[redacted]",
      },
    },
    { write: (line: string) => (holder.__chunkwiseLogSink ?? process.stdout).write(line) },
  );
}

export function logger(): Logger {
  return (holder.__chunkwiseLogger ??= createLogger());
}
