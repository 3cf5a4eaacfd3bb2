// A thread of the CPU pool (lib/cpu/pool.ts, through piscina): runs the
// tasks of lib/cpu/tasks.ts. It loads the TypeScript sources itself with tsx,
// as server.mjs does, so the same code runs under `next start`, `next dev`
// and vitest without a separate build of the worker.
import { tsImport } from "tsx/esm/api";

const { runTask, prepareWorker } = await tsImport("../lib/cpu/tasks.ts", import.meta.url);
await prepareWorker();

export default runTask;
