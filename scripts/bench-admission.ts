/**
 * Jobs cannot starve requests: a one-page text PDF's latency from one client, alone and while another client's
 * two free scans run as async jobs, with the jobs' share of the threads at its default (CPU_JOB_THREADS = half)
 * and at all of them (as before the share existed). In process, through the route handlers, memory store.
 *
 *   npx tsx scripts/bench-admission.ts [rounds]
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "@/lib/config";
import { CpuPool } from "@/lib/cpu/pool";
import { createServices, setServices } from "@/lib/services";
import { MemoryStore } from "@/lib/store";
import { call, upload } from "@/tests/helpers/api";
import { pdfOfPages } from "@/tests/helpers/scans";

const ROUNDS = Number(process.argv[2] ?? 8);
const THREADS = 2;

const structured = new Uint8Array(readFileSync(path.join(process.cwd(), "tests/fixtures/structured.pdf")));
const onePage = await pdfOfPages(structured, [{ page: 1, as: "text" }]);
const scan = await pdfOfPages(
  structured,
  [1, 2, 1, 2, 1, 2].map((page) => ({ page, as: "scan" as const })),
);

async function latencies(label: string, jobThreads: number, withScans: boolean): Promise<void> {
  const config = loadConfig({
    FREE_PAGES_PER_DAY: "100000",
    CPU_THREADS: String(THREADS),
    CLIENT_MAX_ACTIVE_JOBS: "10",
  });
  const cpu = new CpuPool({ ...config.cpu, jobThreads });
  const running: Promise<void>[] = [];
  setServices(
    createServices(config, {
      store: new MemoryStore(),
      cpu,
      schedule: (work) => void running.push(work()),
    }),
  );
  const send = () => call("POST", "/api/chunk/free", { body: upload(onePage, "one.pdf"), client: "198.51.100.1" });
  await send(); // warm the pool's threads
  if (withScans)
    for (let i = 0; i < 2; i++) {
      const accepted = await call("POST", "/api/chunk/free", {
        body: upload(scan, "scan.pdf", { async: "true" }),
        client: "198.51.100.2",
      });
      if (accepted.status !== 200) throw new Error(`scan job answered ${accepted.status}: ${await accepted.text()}`);
    }
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the scans are being read
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    const response = await send();
    if (response.status !== 200) throw new Error(`answered ${response.status}`);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${label.padEnd(48)} median ${(median / 1000).toFixed(2)} s, max ${(times.at(-1)! / 1000).toFixed(2)} s (${ROUNDS} requests)`,
  );
  await Promise.allSettled(running);
  await cpu.close();
}

await latencies("alone", 1, false);
await latencies(`2 scan jobs running, CPU_JOB_THREADS=1 (default)`, 1, true);
await latencies(`2 scan jobs running, CPU_JOB_THREADS=${THREADS} (no share)`, THREADS, true);
setServices(undefined);
process.exit(0);
