// A thread of the CPU pool (lib/cpu/pool.ts, through piscina): runs the
// tasks of lib/cpu/tasks.ts. This one loads the TypeScript sources itself
// with tsx, for `next dev`, vitest and the scripts; a production build runs
// the copy `npm run build` compiles (scripts/compile-node.ts), so nothing
// compiles TypeScript in production.
import { tsImport } from "tsx/esm/api";

const { runTask, prepareWorker } = await tsImport("../lib/cpu/tasks.ts", import.meta.url);
await prepareWorker();

export default runTask;
