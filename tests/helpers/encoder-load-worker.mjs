// One load of the built-in sentence encoder in a thread of its own, as a CPU pool thread loads it
// (tests/sentence-encoder-load.test.ts). `instantiateDelayMs` holds back WebAssembly's instantiation, as a
// machine too busy to compile TensorFlow.js's backend before the weights are read does.
import { parentPort, workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { instantiateDelayMs = 0 } = workerData ?? {};
if (instantiateDelayMs > 0) {
  const instantiate = WebAssembly.instantiate.bind(WebAssembly);
  WebAssembly.instantiate = async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, instantiateDelayMs));
    return instantiate(...args);
  };
}

try {
  const { SentenceEncoderEmbedder } = await tsImport("../../lib/embeddings/sentence-encoder.ts", import.meta.url);
  const [vector] = await new SentenceEncoderEmbedder().embed(["Chunking splits documents for retrieval."]);
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  parentPort.postMessage({ ok: true, length: vector.length, norm });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
