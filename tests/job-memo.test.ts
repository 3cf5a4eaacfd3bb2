import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobMemo } from "@/lib/jobs/job-memo";
import type { OcrPage } from "@/lib/extract/page-items";
import { RedisStore } from "@/lib/store";
import { startRedisServer, type RedisServer } from "@/tests/helpers/redis-server";

let redis: RedisServer;
let store: RedisStore;

beforeAll(async () => {
  redis = await startRedisServer();
  store = new RedisStore({ url: redis.url });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

const job = (maxKeptChars?: number) => ({
  id: `job_${randomBytes(8).toString("hex")}`,
  expiresAt: Date.now() + 60_000,
  killed: new AbortController().signal,
  maxKeptChars,
});

// Random text does not compress: each page is kept as about 4/3 of its bytes in base64.
const page = (bytes: number) => ({ text: randomBytes(bytes).toString("latin1") }) as unknown as OcrPage;

describe("JobMemo", () => {
  it("keeps what a job made until the job's share is used, then lets the rest be done again", async () => {
    const memo = new JobMemo(store, job(100_000));
    for (let n = 1; n <= 6; n++) await memo.pages.put(n, page(20_000));
    const kept = await memo.pages.getMany([1, 2, 3, 4, 5, 6]);
    const count = kept.filter((value) => value !== null).length;
    // Each page is ~27 kB of base64 (20 kB of random bytes, which gzip cannot shrink): three fit in 100 kB, the fourth does not.
    expect(count).toBe(3);
    expect(kept.slice(0, 3).every((value) => value !== null)).toBe(true);
  });

  it("counts a batch's documents against one share", async () => {
    const memo = new JobMemo(store, job(100_000));
    for (let input = 0; input < 6; input++) await memo.member(input).pages.put(1, page(20_000));
    const kept = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (input) => (await memo.member(input).pages.getMany([1]))[0]),
    );
    expect(kept.filter((value) => value !== null).length).toBe(3);
  });

  it("keeps nothing for a slice that was killed", async () => {
    const controller = new AbortController();
    const memo = new JobMemo(store, { ...job(), killed: controller.signal });
    controller.abort();
    await memo.pages.put(1, page(100));
    expect(await memo.pages.getMany([1])).toEqual([null]);
  });
});
