/**
 * What the stand-in answers each task of lib/ai/prompts.ts, by the
 * `json_schema.name` the request names, and the bad answers it gives when a
 * fault is asked for. Answers are checked against the task's own schema
 * before they leave, so a good answer can never be a malformed one.
 */
import {
  CHUNK_CONTEXT_TASK,
  CHUNK_ENRICHMENT_TASK,
  DOCUMENT_SUMMARY_TASK,
  SECTION_STARTS_TASK,
  type Task,
} from "@/lib/ai/prompts";
import type { CompletionFault } from "./controls";
import { findEntities } from "./entities";
import { parseUnits, sectionStarts } from "./section-starts";
import {
  documentOpening,
  parseChunks,
  parseSectionSummaries,
  situateChunk,
  summariseChunk,
  summariseDocument,
} from "./summaries";

interface Answerer<T> {
  task: Task<T>;
  answer: (userMessage: string) => T;
  /** Valid JSON of the wrong shape, as a model that ignored the schema would write. */
  schemaBreak: unknown;
}

const answerer = <T>(a: Answerer<T>) => a;

const ANSWERERS = {
  [SECTION_STARTS_TASK.name]: answerer({
    task: SECTION_STARTS_TASK,
    answer: (message) => ({ starts: sectionStarts(parseUnits(message)) }),
    schemaBreak: { starts: "three" },
  }),
  [CHUNK_ENRICHMENT_TASK.name]: answerer({
    task: CHUNK_ENRICHMENT_TASK,
    answer: (message) => ({
      chunks: parseChunks(message).map((chunk) => ({
        index: chunk.index,
        summary: summariseChunk(chunk.text),
        entities: findEntities(chunk.text),
      })),
    }),
    schemaBreak: { chunks: [{ index: "first", summary: 42, entities: "none" }] },
  }),
  [DOCUMENT_SUMMARY_TASK.name]: answerer({
    task: DOCUMENT_SUMMARY_TASK,
    answer: (message) => ({ summary: summariseDocument(parseSectionSummaries(message)) }),
    schemaBreak: { summary: ["not", "a", "string"] },
  }),
  [CHUNK_CONTEXT_TASK.name]: answerer({
    task: CHUNK_CONTEXT_TASK,
    answer: (message) => {
      const opening = documentOpening(message);
      return {
        contexts: parseChunks(message).map((chunk) => ({
          index: chunk.index,
          context: situateChunk(opening, chunk.text),
        })),
      };
    },
    schemaBreak: { contexts: "none" },
  }),
} as Record<string, Answerer<unknown>>;

export const TASK_NAMES = Object.keys(ANSWERERS);

export function isKnownTask(name: string): boolean {
  return Object.hasOwn(ANSWERERS, name);
}

/**
 * Markers a test puts in a message to get the same fault on every request
 * carrying it (retries included).
 */
export const MARKERS = {
  "STANDIN:BROKEN_JSON": "broken_json",
  "STANDIN:SCHEMA_BREAK": "schema_break",
  "STANDIN:FAIL_500": "server_error",
} as const satisfies Record<string, CompletionFault>;

export function markerFault(userMessage: string): CompletionFault | undefined {
  for (const [marker, fault] of Object.entries(MARKERS)) if (userMessage.includes(marker)) return fault;
  return undefined;
}

/** The content of the assistant's message for `task`: a JSON string, or on a content fault a bad one. */
export function answerContent(taskName: string, userMessage: string, fault?: "broken_json" | "schema_break"): string {
  const a = ANSWERERS[taskName];
  if (!a) throw new Error(`no answerer for task ${taskName}`);
  if (fault === "schema_break") return JSON.stringify(a.schemaBreak);
  const good = JSON.stringify(a.task.schema.parse(a.answer(userMessage)));
  // A proper prefix of a JSON object is never valid JSON: like a reply cut off mid-way.
  return fault === "broken_json" ? good.slice(0, Math.max(1, Math.floor(good.length / 2))) : good;
}
