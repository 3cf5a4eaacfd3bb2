/**
 * Result and job ids are capabilities (issue 26, reproduction 9): 128 random
 * bits, so that holding one is the only way to read what it names; ids of the
 * earlier 48-bit form answer 404 like any unknown id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobIdSchema, ResultIdSchema } from "@/lib/api-schema";
import { loadConfig } from "@/lib/ground/config";
import { newJobId } from "@/lib/jobs/job-store";
import { newResultId } from "@/lib/results";
import { RESULT_ID_PATTERN } from "@/lib/tiers";
import { createServices, setServices } from "@/lib/services";
import { RedisStore } from "@/lib/store";
import { TIER_IDS } from "@/lib/tiers";
import { call, pollUntilDone, prose, upload } from "./helpers/api";
import { type RedisServer, startRedisServer } from "./helpers/redis-server";

const SAMPLES = 2000;

/** Bits of randomness an id's hex part carries, estimated from how evenly each position's digits spread. */
function estimatedBits(ids: string[]): number {
  const hex = ids.map((id) => id.slice(id.lastIndexOf("_") + 1));
  const length = hex[0]!.length;
  let bits = 0;
  for (let position = 0; position < length; position++) {
    const counts = new Map<string, number>();
    for (const h of hex) counts.set(h[position]!, (counts.get(h[position]!) ?? 0) + 1);
    // Shannon entropy of this position's digit; 4 bits when all sixteen are equally likely.
    for (const count of counts.values()) bits -= (count / hex.length) * Math.log2(count / hex.length);
  }
  return bits;
}

describe("ids as capabilities", () => {
  it("makes result and job ids of at least 128 random bits, in the tier-prefix form", () => {
    for (const make of [() => newResultId("standard"), () => newJobId("ai-pro")]) {
      const ids = Array.from({ length: SAMPLES }, make);
      expect(new Set(ids).size).toBe(SAMPLES);
      for (const id of ids) expect(id).toMatch(/^(standard|ai-pro)_[0-9a-f]{32}$/);
      // 2,000 samples per position estimate each position's 4 bits to within a few hundredths.
      expect(estimatedBits(ids)).toBeGreaterThan(124);
    }
  });

  it("accepts exactly the new form in the wire schemas; the old 12-digit one is not an id", () => {
    const result = newResultId("ai-pro");
    expect(ResultIdSchema.safeParse(result).success).toBe(true);
    expect(RESULT_ID_PATTERN.test("standard_3f9c0a1b2c3d")).toBe(false);
    for (const tier of TIER_IDS) {
      expect(JobIdSchema.safeParse(newJobId(tier)).success).toBe(true);
      expect(JobIdSchema.safeParse(`${tier}_3f9c0a1b2c3d`).success).toBe(false);
    }
  });
});

describe("through the API", () => {
  let redis: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    store = new RedisStore({ url: redis.url });
    setServices(createServices(loadConfig({ REDIS_URL: redis.url }), { store }));
  });

  afterAll(async () => {
    setServices(undefined);
    await store?.close();
    await redis?.stop();
  });

  it("hands out a 128-bit result id and job id, and answers the old 48-bit form with 404", async () => {
    const large = await call("POST", "/api/chunk/free", {
      body: upload(prose(10), "long.txt", { max_tokens: "32", overlap_tokens: "0" }),
      client: "203.0.113.80",
    });
    expect(large.status).toBe(200);
    const summary = (await large.json()) as Record<string, any>;
    expect(summary.result_id).toMatch(/^standard_[0-9a-f]{32}$/);
    expect((await call("GET", `/api/results/${summary.result_id}`)).status).toBe(200);

    const accepted = await call("POST", "/api/chunk/free", {
      body: upload(prose(1), "short.txt", { async: "true" }),
      client: "203.0.113.81",
    });
    expect(accepted.status).toBe(200);
    const job = (await accepted.json()) as Record<string, any>;
    expect(job.job_id).toMatch(/^free_[0-9a-f]{32}$/);
    const done = (await pollUntilDone(job.job_id, 60_000)).at(-1)!;
    expect(done).toMatchObject({ status: "completed", result_id: expect.stringMatching(/^standard_[0-9a-f]{32}$/) });

    // What the old ids looked like: the first 12 digits of real ones, and a guess.
    for (const path of [
      `/api/results/${summary.result_id.slice(0, "standard_".length + 12)}`,
      "/api/results/standard_000000000000",
      `/api/job/${job.job_id.slice(0, "free_".length + 12)}/status`,
      `/api/job/${job.job_id.slice(0, "free_".length + 12)}/result`,
    ]) {
      const response = await call("GET", path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ success: false, code: "expired_or_unknown" });
    }
  });
});
