import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResultStore, newResultId } from "@/lib/results";
import { TIERS } from "@/lib/tiers";
import { UpstashStore } from "@/lib/store";
import { startRedisServer, type RedisServer } from "@/tests/helpers/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/tests/helpers/upstash-bridge";

// On Upstash's REST protocol in front of a real redis-server, with its 10 MB request limit.
let redis: RedisServer;
let bridge: UpstashBridge;
let store: UpstashStore;
let results: ResultStore;

beforeAll(async () => {
  redis = await startRedisServer();
  bridge = await startUpstashBridge(redis.url);
  store = new UpstashStore({ url: bridge.url, token: bridge.token, requestTimeoutMs: 30_000 });
  results = new ResultStore(store, 3600);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bridge?.stop();
  await redis?.stop();
});

describe("ResultStore", () => {
  it("keeps a result of tens of MB, past Upstash's 10 MB request, and serves it as saved", async () => {
    // Random text barely compresses, so the stored value stays past 10 MB and must go in parts.
    const chunks = Array.from({ length: 400 }, (_, i) => ({
      chunk_id: i,
      text: randomBytes(24_000).toString("base64"),
    }));
    const json = JSON.stringify({ success: true, chunks });
    expect(json.length).toBeGreaterThan(12 * 1024 * 1024);
    const id = newResultId(TIERS.free.resultPrefix);
    await results.save(id, json);
    expect(await results.load(id)).toBe(json);
  });

  it("reads a result saved before gzip and parts, and answers an unknown one as expired", async () => {
    const id = newResultId(TIERS.free.resultPrefix);
    const json = JSON.stringify({ success: true, chunks: [{ text: "Grüße, 東京 🌍" }] });
    await store.set(`result:${id}`, json, { ttlMs: 60_000 });
    expect(await results.load(id)).toBe(json);
    await expect(results.load(newResultId(TIERS.free.resultPrefix))).rejects.toMatchObject({
      code: "expired_or_unknown",
    });
  });
});
