import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "@upstash/redis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore, MemoryStore, RedisStore, StoreClosedError, UpstashStore } from "@/lib/store";
import { getBytes, PART_BYTES, setBytes } from "@/lib/store/byte-values";
import type { Store } from "@/lib/store/types";
import { freePort, type RedisServer, startRedisServer } from "@/tests/helpers/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/tests/helpers/upstash-bridge";

/** A store plus a way to let time pass for it: a fake clock where there is one, real waiting otherwise. */
interface Subject {
  store: Store;
  elapse: (ms: number) => Promise<void>;
}

const unavailable = { status: 503, code: "store_unavailable" };

/** Every test gets its own key space, so tests cannot see each other's keys. */
const keys = () => {
  const prefix = `t:${randomUUID()}`;
  return (name: string) => `${prefix}:${name}`;
};

function storeContract(name: string, open: () => Promise<Subject>) {
  describe(`Store contract: ${name}`, () => {
    let subject: Subject;
    let store: Store;

    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    afterAll(async () => {
      await store?.close();
    });

    it("reads back what it wrote, and null for a key never written", async () => {
      const key = keys();
      await store.set(key("a"), "hello", { ttlMs: 60_000 });
      expect(await store.get(key("a"))).toBe("hello");
      expect(await store.get(key("never"))).toBeNull();
    });

    it("keeps values as opaque strings", async () => {
      const key = keys();
      // Each of these would come back changed from a client that parses JSON or trims.
      for (const [i, value] of [
        "",
        "00123",
        "123",
        '{"a":1}',
        "true",
        "null",
        "héllo 🌍",
        " padded ",
        "OK",
        "PONG",
      ].entries()) {
        await store.set(key(String(i)), value, { ttlMs: 60_000 });
        expect(await store.get(key(String(i)))).toBe(value);
      }
    });

    it("overwrites a value and its TTL", async () => {
      const key = keys();
      await store.set(key("a"), "one", { ttlMs: 60_000 });
      await store.set(key("a"), "two", { ttlMs: 5_000 });
      expect(await store.get(key("a"))).toBe("two");
      const ttl = await store.ttlMs(key("a"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
    });

    it("forgets a key once its TTL has passed", async () => {
      const key = keys();
      await store.set(key("a"), "v", { ttlMs: 150 });
      expect(await store.get(key("a"))).toBe("v");
      const ttl = await store.ttlMs(key("a"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(150);
      await subject.elapse(250);
      expect(await store.get(key("a"))).toBeNull();
      expect(await store.ttlMs(key("a"))).toBeNull();
    });

    it("reports null as the TTL of an absent key", async () => {
      const key = keys();
      expect(await store.ttlMs(key("none"))).toBeNull();
    });

    it("setIfAbsent writes only when the key is absent or expired", async () => {
      const key = keys();
      expect(await store.setIfAbsent(key("a"), "first", { ttlMs: 150 })).toBe(true);
      expect(await store.setIfAbsent(key("a"), "second", { ttlMs: 60_000 })).toBe(false);
      expect(await store.get(key("a"))).toBe("first");
      const ttl = await store.ttlMs(key("a"));
      expect(ttl).toBeLessThanOrEqual(150);
      await subject.elapse(250);
      expect(await store.setIfAbsent(key("a"), "third", { ttlMs: 60_000 })).toBe(true);
      expect(await store.get(key("a"))).toBe("third");
    });

    it("setIfAbsent lets exactly one of 20 concurrent callers win", async () => {
      const key = keys();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.setIfAbsent(key("claim"), `caller-${i}`, { ttlMs: 60_000 })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await store.get(key("claim"))).toBe(`caller-${winner}`);
    });

    it("delIfEquals removes the key only while it holds the expected value", async () => {
      const key = keys();
      await store.set(key("claim"), "mine", { ttlMs: 60_000 });
      expect(await store.delIfEquals(key("claim"), "theirs")).toBe(false);
      expect(await store.get(key("claim"))).toBe("mine");
      expect(await store.delIfEquals(key("claim"), "mine")).toBe(true);
      expect(await store.get(key("claim"))).toBeNull();
      expect(await store.delIfEquals(key("claim"), "mine")).toBe(false);
      expect(await store.delIfEquals(key("never"), "")).toBe(false);
    });

    it("delIfEquals lets one of 10 concurrent releases of the same claim win", async () => {
      const key = keys();
      await store.set(key("claim"), "token", { ttlMs: 60_000 });
      const results = await Promise.all(Array.from({ length: 10 }, () => store.delIfEquals(key("claim"), "token")));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("setIfEquals writes only while the key holds the expected value, with a fresh TTL", async () => {
      const key = keys();
      await store.set(key("job"), "v1", { ttlMs: 1_000 });
      expect(await store.setIfEquals(key("job"), "v0", "v2", { ttlMs: 60_000 })).toBe(false);
      expect(await store.get(key("job"))).toBe("v1");
      expect(await store.setIfEquals(key("job"), "v1", "v2", { ttlMs: 60_000 })).toBe(true);
      expect(await store.get(key("job"))).toBe("v2");
      expect(await store.ttlMs(key("job"))).toBeGreaterThan(1_000);
      expect(await store.setIfEquals(key("absent"), "", "v", { ttlMs: 60_000 })).toBe(false);
      expect(await store.get(key("absent"))).toBeNull();
    });

    it("setIfEquals lets exactly one of 10 concurrent writers from the same state win", async () => {
      const key = keys();
      await store.set(key("job"), "start", { ttlMs: 60_000 });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.setIfEquals(key("job"), "start", `writer-${i}`, { ttlMs: 60_000 })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get(key("job"))).toBe(`writer-${results.indexOf(true)}`);
    });

    it("incrBy counts from zero, decrements with a negative step, and sets the TTL on creation", async () => {
      const key = keys();
      expect(await store.incrBy(key("n"), 5, { ttlMs: 60_000 })).toBe(5);
      expect(await store.incrBy(key("n"), -7, { ttlMs: 60_000 })).toBe(-2);
      expect(await store.get(key("n"))).toBe("-2");
      const ttl = await store.ttlMs(key("n"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it("incrBy sums 50 concurrent increments exactly", async () => {
      const key = keys();
      const results = await Promise.all(Array.from({ length: 50 }, () => store.incrBy(key("n"), 1, { ttlMs: 60_000 })));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await store.get(key("n"))).toBe("50");
    });

    it("incrBy keeps the TTL set at creation instead of extending it", async () => {
      const key = keys();
      await store.incrBy(key("n"), 1, { ttlMs: 400 });
      await subject.elapse(200);
      expect(await store.incrBy(key("n"), 1, { ttlMs: 60_000 })).toBe(2);
      const ttl = await store.ttlMs(key("n"));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(200);
      await subject.elapse(300);
      expect(await store.get(key("n"))).toBeNull();
      // A new window starts from scratch.
      expect(await store.incrBy(key("n"), 1, { ttlMs: 60_000 })).toBe(1);
    });

    it("incrBy refuses a value that is not an integer, as a fault rather than an outage", async () => {
      const key = keys();
      await store.set(key("s"), "not a number", { ttlMs: 60_000 });
      const error = await store.incrBy(key("s"), 1, { ttlMs: 60_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toMatchObject(unavailable);
      expect(await store.get(key("s"))).toBe("not a number");
    });

    it("rejects TTLs and steps Redis would refuse", async () => {
      const key = keys();
      await expect(store.set(key("a"), "v", { ttlMs: 0 })).rejects.toThrow(RangeError);
      await expect(store.set(key("a"), "v", { ttlMs: 1.5 })).rejects.toThrow(RangeError);
      await expect(store.setIfAbsent(key("a"), "v", { ttlMs: -1 })).rejects.toThrow(RangeError);
      await expect(store.incrBy(key("a"), 0.5, { ttlMs: 1_000 })).rejects.toThrow(RangeError);
      expect(await store.get(key("a"))).toBeNull();
    });

    it("del removes a key, and deleting an absent key is fine", async () => {
      const key = keys();
      await store.set(key("a"), "v", { ttlMs: 60_000 });
      await store.del(key("a"));
      expect(await store.get(key("a"))).toBeNull();
      expect(await store.ttlMs(key("a"))).toBeNull();
      await expect(store.del(key("never"))).resolves.toBeUndefined();
    });

    it("ping resolves while the backing service is up", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it("keeps a 25 MB document in parts and reads it back byte for byte", async () => {
      const key = keys()("document");
      const document = randomBytes(25 * 1024 * 1024);
      await setBytes(store, key, document, { ttlMs: 60_000 });
      expect(Buffer.from((await getBytes(store, key))!).equals(document)).toBe(true);
      // Each part is a value of its own, none near Upstash's 10 MB request.
      expect((await store.get(`${key}:part:0`))!.length).toBe((PART_BYTES / 3) * 4);
      expect(await store.get(`${key}:part:${Math.ceil(document.length / PART_BYTES)}`)).toBeNull();
    });

    it("reads a document as absent once any part of it is gone, and an empty one as empty", async () => {
      const k = keys();
      await setBytes(store, k("doc"), new Uint8Array([1, 2, 3, 4, 5]), { ttlMs: 60_000, partBytes: 2 });
      expect([...(await getBytes(store, k("doc")))!]).toEqual([1, 2, 3, 4, 5]);
      await store.del(`${k("doc")}:part:1`);
      expect(await getBytes(store, k("doc"))).toBeNull();
      expect(await getBytes(store, k("never"))).toBeNull();
      await setBytes(store, k("empty"), new Uint8Array(), { ttlMs: 60_000 });
      expect((await getBytes(store, k("empty")))!.length).toBe(0);
      // A document stored whole, as before parts, still reads.
      await store.set(k("whole"), Buffer.from("old").toString("base64"), { ttlMs: 60_000 });
      expect(Buffer.from((await getBytes(store, k("whole")))!).toString()).toBe("old");
    });

    it("refuses every call after close, and close is idempotent", async () => {
      const own = (await open()).store;
      await own.ping();
      await own.close();
      await own.close();
      await expect(own.get("k")).rejects.toThrow(StoreClosedError);
      await expect(own.set("k", "v", { ttlMs: 1_000 })).rejects.toThrow(StoreClosedError);
      await expect(own.ping()).rejects.toThrow(StoreClosedError);
    });
  });
}

let redis: RedisServer;
let bridge: UpstashBridge;

beforeAll(async () => {
  redis = await startRedisServer();
  bridge = await startUpstashBridge(redis.url);
});
afterAll(async () => {
  await bridge?.stop();
  await redis?.stop();
});

const realTime = (ms: number) => sleep(ms).then(() => undefined);

storeContract("memory (fake clock)", async () => {
  let now = 1_000_000;
  const store = new MemoryStore({ clock: { now: () => now } });
  return {
    store,
    async elapse(ms) {
      now += ms;
    },
  };
});

storeContract("redis (real redis-server)", async () => ({
  store: new RedisStore({ url: redis.url }),
  elapse: realTime,
}));

storeContract("upstash (REST bridge to real redis-server)", async () => ({
  store: new UpstashStore({ url: bridge.url, token: bridge.token }),
  elapse: realTime,
}));

describe("MemoryStore", () => {
  it("sweeps keys that expired and were never read again", async () => {
    let now = 0;
    const store = new MemoryStore({ clock: { now: () => now }, sweepIntervalMs: 1_000 });
    for (let i = 0; i < 100; i++) await store.set(`old:${i}`, "v", { ttlMs: 500 });
    await store.set("kept", "v", { ttlMs: 10_000 });
    expect(store.size).toBe(101);
    now = 1_000;
    await store.set("trigger", "v", { ttlMs: 10_000 });
    expect(store.size).toBe(2);
    expect(await store.get("kept")).toBe("v");
  });

  it("expires on the system clock when none is given", async () => {
    const store = new MemoryStore();
    await store.set("k", "v", { ttlMs: 50 });
    expect(await store.get("k")).toBe("v");
    await sleep(100);
    expect(await store.get("k")).toBeNull();
  });
});

describe("RedisStore failures", () => {
  it("rejects as unavailable when nothing listens on the port", async () => {
    const store = new RedisStore({ url: `redis://127.0.0.1:${await freePort()}` });
    try {
      await expect(store.ping()).rejects.toMatchObject(unavailable);
      await expect(store.get("k")).rejects.toMatchObject(unavailable);
    } finally {
      await store.close();
    }
  });

  it("rejects as unavailable when the server accepts connections but never answers", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const store = new RedisStore({ url: `redis://127.0.0.1:${port}`, connectDeadlineMs: 1_000 });
    try {
      await expect(store.ping()).rejects.toMatchObject(unavailable);
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("rejects as unavailable when a command gets no answer in time", async () => {
    const server = await startRedisServer();
    const store = new RedisStore({ url: server.url, commandTimeoutMs: 300 });
    try {
      await store.ping();
      // CLIENT PAUSE holds every client's commands, like a server stuck on a slow script.
      await pauseClients(server.url, 1_000);
      await expect(store.get("k")).rejects.toMatchObject(unavailable);
      await sleep(1_000);
      // The stuck connection was dropped; a fresh one serves once the server answers again.
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await store.close();
      await server.stop();
    }
  });

  it("fails calls during an outage and recovers when the server is back", async () => {
    const server = await startRedisServer();
    let restarted: RedisServer | undefined;
    const store = new RedisStore({ url: server.url });
    try {
      await store.set("k", "v", { ttlMs: 60_000 });
      await server.stop();
      await expect(store.get("k")).rejects.toMatchObject(unavailable);
      restarted = await startRedisServer({ port: server.port });
      await expect(store.ping()).resolves.toBeUndefined();
      // A fresh server: the earlier value is gone, and writes work again.
      expect(await store.get("k")).toBeNull();
      await store.set("k", "w", { ttlMs: 60_000 });
      expect(await store.get("k")).toBe("w");
    } finally {
      await store.close();
      await restarted?.stop();
    }
  });
});

async function pauseClients(url: string, ms: number): Promise<void> {
  const client = createClient({ url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.sendCommand(["CLIENT", "PAUSE", String(ms), "ALL"]);
  } finally {
    client.destroy();
  }
}

describe("UpstashStore failures", () => {
  it("rejects a wrong token as a fault, not as an outage", async () => {
    const store = new UpstashStore({ url: bridge.url, token: "wrong" });
    const error = await store.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toMatchObject(unavailable);
  });

  it("refuses one request over 10 MB, as Upstash does: why documents are kept in parts", async () => {
    const store = new UpstashStore({ url: bridge.url, token: bridge.token, requestTimeoutMs: 30_000 });
    const base64 = randomBytes(8 * 1024 * 1024).toString("base64");
    await expect(store.set(keys()("whole"), base64, { ttlMs: 60_000 })).rejects.toThrow(/max request size/);
  });

  it("rejects as unavailable when nothing listens at the URL", async () => {
    const store = new UpstashStore({ url: `http://127.0.0.1:${await freePort()}`, token: "t" });
    await expect(store.ping()).rejects.toMatchObject(unavailable);
  });

  it("rejects as unavailable when the endpoint never answers", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const store = new UpstashStore({ url: `http://127.0.0.1:${port}`, token: "t", requestTimeoutMs: 500 });
    try {
      await expect(store.ping()).rejects.toMatchObject(unavailable);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("the bridge serves transactions like Upstash does", async () => {
    const client = new Redis({
      url: bridge.url,
      token: bridge.token,
      automaticDeserialization: false,
      enableTelemetry: false,
    });
    const key = keys();
    const replies = await client.multi().set(key("a"), "x").get(key("a")).incr(key("a")).exec({ keepErrors: true });
    expect(replies.map((r) => r.result)).toEqual(["OK", "x", undefined]);
    expect(replies[2]?.error).toMatch(/not an integer/);
  });
});

describe("test helpers", () => {
  it("startRedisServer throws, never skips, when redis-server is missing", async () => {
    await expect(startRedisServer({ binary: "redis-server-not-installed" })).rejects.toThrow(/not installed/);
  });
});

describe("createStore", () => {
  it("builds the store the config names", async () => {
    const stores = [
      createStore({ kind: "memory" }),
      createStore({ kind: "redis", url: redis.url }),
      createStore({ kind: "upstash", url: bridge.url, token: bridge.token }),
    ];
    expect(stores.map((s) => s.kind)).toEqual(["memory", "redis", "upstash"]);
    for (const store of stores) {
      await store.ping();
      await store.close();
    }
  });
});
