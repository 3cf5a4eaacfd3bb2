/**
 * The built-in model loads every time (issue 26, reproduction 11): once in
 * ~45 runs on a loaded machine it failed with "Backend 'wasm' has not yet
 * been initialized", because the package reads the weights while TensorFlow.js
 * still compiles its WebAssembly backend. Each load here runs in a thread of
 * its own, as in the CPU pool (tests/helpers/encoder-load-worker.mjs).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const LOADER = new URL("./helpers/encoder-load-worker.mjs", import.meta.url);
/** A load takes ~2 s alone; under contention, many times that. Generous: the machine is shared. */
const LOAD_DEADLINE_MS = 240_000;

interface Loaded {
  ok: boolean;
  length?: number;
  norm?: number;
  message?: string;
}

function loadInThread(instantiateDelayMs = 0): Promise<Loaded> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOADER, { workerData: { instantiateDelayMs } });
    const deadline = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`no answer from a loading thread within ${LOAD_DEADLINE_MS} ms`));
    }, LOAD_DEADLINE_MS);
    worker.once("message", (message: Loaded) => {
      clearTimeout(deadline);
      void worker.terminate();
      resolve(message);
    });
    worker.once("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
  });
}

/** Threads that keep every core busy until stopped (and stop themselves after `maxMs` in any case). */
function busyThreads(count: number, maxMs: number): { stop: () => Promise<void> } {
  const code = `const end = Date.now() + ${maxMs}; let x = 0; while (Date.now() < end) x = (x * 31 + 7) % 1000003;`;
  const workers = Array.from({ length: count }, () => new Worker(code, { eval: true }));
  return { stop: async () => void (await Promise.all(workers.map((w) => w.terminate()))) };
}

const expectLoaded = (result: Loaded) => {
  expect(result, result.message).toMatchObject({ ok: true, length: 512 });
  expect(result.norm).toBeCloseTo(1, 3);
};

describe("loading the sentence encoder", () => {
  it("waits for the backend however long its WebAssembly takes to compile", async () => {
    // Deterministic form of the race: the weights are read before the backend's instantiation finishes.
    const results = await Promise.all([500, 2000].map((delay) => loadInThread(delay)));
    results.forEach(expectLoaded);
  }, 300_000);

  it("loads in several threads at once under CPU contention, every time", async () => {
    const rounds = 3;
    const loadersPerRound = 4;
    const busy = busyThreads(availableParallelism(), 600_000);
    try {
      for (let round = 0; round < rounds; round++) {
        const results = await Promise.all(Array.from({ length: loadersPerRound }, () => loadInThread()));
        results.forEach(expectLoaded);
      }
    } finally {
      await busy.stop();
    }
  }, 900_000);
});
