/**
 * What a tier is: one record holds everything that differs between tiers, and the routes, orchestrators,
 * documentation and page read it instead of asking for a tier by name. Each tier's record is in its own file.
 */

/** The splitters lib/chunking runs, named here so the record stays free of the splitting code (the page imports it). */
export type SplitterKey = "recursive" | "structure" | "semantic" | "alongSections";

/** Where an AI tier's model comes from: its client, the `Config["ai"]` fields and the setting that names it. */
export interface TierModel {
  /** Its client among the model clients chosen at start-up (lib/ai/model-client.ts). */
  client: "ai" | "aiPro";
  /** The `Config["ai"]` field holding the model's name. */
  config: "model" | "proModel";
  /** The environment variable that sets it, named in `GET /api` and the 503 when it is unset. */
  setting: string;
  /** The `Config["ai"]` field bounding one request's parallel model calls. */
  concurrency: "concurrency" | "proConcurrency";
}

export interface TierRecord<Id extends string = string> {
  id: Id;
  /** Multipart endpoints under /api, the first one canonical. */
  endpoints: readonly string[];
  /** Price in USDC base units (6 decimals); 0 is free, counted against the daily free pages instead. */
  priceBaseUnits: number;
  /** What the method does, for `GET /api`, the OpenAPI document and the page. */
  method: string;
  goodFor: string;
  /** `async`: every request is a job. */
  mode: "sync" | "async";
  /** Prefix of stored result ids. */
  resultPrefix: string;
  /** `metadata.method` of its results and `running_method` in `GET /api`. */
  runningMethod: string;
  /** The splitter that cuts the text, by its key in lib/chunking. */
  splitter: SplitterKey;
  /** Before the split: a model finds the section boundaries. Absent: no model. */
  model?: TierModel;
  /** After the split: the model writes each chunk's summary and entities and the document's summary. */
  enrich: boolean;
  /** After the split, on request (`context=true`): the model writes each chunk's situating context. */
  situates: boolean;
  /** The splitter needs the embedder, and the results and `GET /api` name it. */
  embedder: boolean;
}
