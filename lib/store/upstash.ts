import { errors, Redis } from "@upstash/redis";
import { assertIncrement, assertTtl, StoreClosedError, storeUnavailable } from "@/lib/store/errors";
import { DEL_IF_EQUALS, SET_IF_EQUALS, INCR_BY_WITH_TTL, pttlToMs } from "@/lib/store/scripts";
import type { Store } from "@/lib/store/types";

interface UpstashStoreOptions {
  url: string;
  token: string;
  /** Per HTTP request; a batch of auto-pipelined commands shares one request. */
  requestTimeoutMs?: number;
}

/** Upstash Redis over its REST API: stateless HTTP, so nothing to connect or release. */
export class UpstashStore implements Store {
  readonly kind = "upstash" as const;
  readonly #redis: Redis;
  #closed = false;

  constructor(options: UpstashStoreOptions) {
    const timeoutMs = options.requestTimeoutMs ?? 5_000;
    this.#redis = new Redis({
      url: options.url,
      token: options.token,
      // Values are opaque strings; by default the client would JSON-parse "123" into 123.
      automaticDeserialization: false,
      // A retried write whose first attempt did reach Redis would double an increment or
      // report a won setIfAbsent as lost; the caller decides whether to try again.
      retry: false,
      // A function, so each request gets a fresh timer; a shared signal would also turn an abort into a fake "Aborted" result.
      signal: () => AbortSignal.timeout(timeoutMs),
      enableTelemetry: false,
    });
  }

  async get(key: string): Promise<string | null> {
    return this.#run(() => this.#redis.get<string>(key));
  }

  async set(key: string, value: string, options: { ttlMs: number }): Promise<void> {
    assertTtl(options.ttlMs);
    await this.#run(() => this.#redis.set(key, value, { px: options.ttlMs }));
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    const reply = await this.#run(() => this.#redis.set(key, value, { nx: true, px: options.ttlMs }));
    return reply === "OK";
  }

  async incrBy(key: string, by: number, options: { ttlMs: number }): Promise<number> {
    assertIncrement(by);
    assertTtl(options.ttlMs);
    const reply = await this.#run(() =>
      this.#redis.eval<string[], unknown>(INCR_BY_WITH_TTL, [key], [String(by), String(options.ttlMs)]),
    );
    if (typeof reply !== "number") throw new Error(`Upstash answered incrBy with ${JSON.stringify(reply)}.`);
    return reply;
  }

  async ttlMs(key: string): Promise<number | null> {
    return pttlToMs(await this.#run(() => this.#redis.pttl(key)));
  }

  async del(key: string): Promise<void> {
    await this.#run(() => this.#redis.del(key));
  }

  async setIfEquals(key: string, expected: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    const reply = await this.#run(() =>
      this.#redis.eval<string[], unknown>(SET_IF_EQUALS, [key], [expected, value, String(options.ttlMs)]),
    );
    return reply === 1;
  }

  async delIfEquals(key: string, value: string): Promise<boolean> {
    const reply = await this.#run(() => this.#redis.eval<string[], unknown>(DEL_IF_EQUALS, [key], [value]));
    return reply === 1;
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#redis.ping());
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError(this.kind);
    try {
      return await command();
    } catch (error) {
      // An error answer from Upstash (bad token, wrong type) is a fault to surface as is; an unparsable
      // body comes from something in between, and a failed or timed-out fetch means it could not be reached.
      if (error instanceof errors.UpstashError && !(error instanceof errors.UpstashJSONParseError)) throw error;
      throw storeUnavailable(this.kind, error);
    }
  }
}
