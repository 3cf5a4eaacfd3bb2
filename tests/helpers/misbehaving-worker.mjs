// The CPU pool's worker (workers/cpu-worker.mjs) with faults on demand, for
// tests of what the pool does when a worker fails: a chunk task whose text
// holds one of these markers misbehaves, any other task runs as usual.
//   WORKER:THROW  the task throws
//   WORKER:CRASH  an uncaught exception ends the worker thread
//   WORKER:OOM    the worker fills its heap up to its resource limit
//   WORKER:HANG   the worker spins forever (only terminating it stops it)
//   WORKER:LATE   the task succeeds, then an uncaught exception ends the
//                 worker while it holds no task
import { tsImport } from "tsx/esm/api";

const { runTask, prepareWorker } = await tsImport("../../lib/cpu/tasks.ts", import.meta.url);
await prepareWorker();

export default async function misbehave(task) {
  const text = task.op === "chunk" ? new TextDecoder().decode(task.text) : "";
  const marker = /WORKER:(THROW|CRASH|OOM|HANG|LATE)/.exec(text)?.[1];
  if (!marker) return runTask(task);
  if (marker === "LATE") {
    setTimeout(() => {
      throw new Error("crashed on purpose, between tasks");
    }, 50);
    return runTask(task);
  }
  task.port.postMessage({ type: "started" });
  switch (marker) {
    case "THROW":
      throw new Error("thrown on purpose");
    case "CRASH":
      setImmediate(() => {
        throw new Error("crashed on purpose");
      });
      return new Promise(() => {});
    case "OOM": {
      const hoard = [];
      for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
    }
    case "HANG":
      for (;;);
  }
}
