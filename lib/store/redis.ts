import { createClient, ErrorReply } from "redis";
import { assertIncrement, assertTtl, StoreClosedError, storeUnavailable } from "@/lib/store/errors";
import { DEL_IF_EQUALS, SET_IF_EQUALS, INCR_BY_WITH_TTL, pttlToMs } from "@/lib/store/scripts";
import type { Store } from "@/lib/store/types";

interface RedisStoreOptions {
  url: string;
  /** One TCP connect attempt. */
  connectTimeoutMs?: number;
  /** The whole first connection, including the handshake a silent server never answers. */
  connectDeadlineMs?: number;
  /** Per command, from being queued to its reply; also bounds commands queued while reconnecting. */
  commandTimeoutMs?: number;
  /** Reconnects after a dropped connection before the client gives up and the next call starts afresh. */
  reconnectAttempts?: number;
}

function connectClient(options: Required<RedisStoreOptions>) {
  return createClient({
    url: options.url,
    socket: {
      connectTimeout: options.connectTimeoutMs,
      // node-redis retries forever by default, which would leave callers waiting on an outage.
      reconnectStrategy: (retries) =>
        retries >= options.reconnectAttempts ? false : Math.min(100 * 2 ** retries, 1000),
    },
  });
}

type Client = ReturnType<typeof connectClient>;

/**
 * Redis over TCP. Connects lazily on first use, since `createStore` is
 * synchronous; a client that gave up reconnecting is replaced on the next
 * call, so an outage fails calls quickly and recovery needs no restart.
 */
export class RedisStore implements Store {
  readonly kind = "redis" as const;
  readonly #options: Required<RedisStoreOptions>;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #closed = false;

  constructor(options: RedisStoreOptions) {
    this.#options = {
      connectTimeoutMs: 2_000,
      connectDeadlineMs: 5_000,
      commandTimeoutMs: 5_000,
      reconnectAttempts: 3,
      ...options,
    };
  }

  async get(key: string): Promise<string | null> {
    return this.#run((c) => c.get(key));
  }

  async set(key: string, value: string, options: { ttlMs: number }): Promise<void> {
    assertTtl(options.ttlMs);
    await this.#run((c) => c.set(key, value, { expiration: { type: "PX", value: options.ttlMs } }));
  }

  async setIfAbsent(key: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    const reply = await this.#run((c) =>
      c.set(key, value, { condition: "NX", expiration: { type: "PX", value: options.ttlMs } }),
    );
    return reply === "OK";
  }

  async incrBy(key: string, by: number, options: { ttlMs: number }): Promise<number> {
    assertIncrement(by);
    assertTtl(options.ttlMs);
    const reply = await this.#run((c) =>
      c.eval(INCR_BY_WITH_TTL, { keys: [key], arguments: [String(by), String(options.ttlMs)] }),
    );
    if (typeof reply !== "number") throw new Error(`Redis answered incrBy with ${JSON.stringify(reply)}.`);
    return reply;
  }

  async ttlMs(key: string): Promise<number | null> {
    return pttlToMs(await this.#run((c) => c.pTTL(key)));
  }

  async del(key: string): Promise<void> {
    await this.#run((c) => c.del(key));
  }

  async setIfEquals(key: string, expected: string, value: string, options: { ttlMs: number }): Promise<boolean> {
    assertTtl(options.ttlMs);
    const reply = await this.#run((c) =>
      c.eval(SET_IF_EQUALS, { keys: [key], arguments: [expected, value, String(options.ttlMs)] }),
    );
    return reply === 1;
  }

  async delIfEquals(key: string, value: string): Promise<boolean> {
    const reply = await this.#run((c) => c.eval(DEL_IF_EQUALS, { keys: [key], arguments: [value] }));
    return reply === 1;
  }

  async ping(): Promise<void> {
    await this.#run((c) => c.ping());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    if (client) await shutDown(client, this.#options.commandTimeoutMs);
  }

  async #run<T>(command: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.#ready();
    try {
      // node-redis' own command timeout stops at the write; a server that never answers would still hang the caller.
      return await withDeadline(command(client), this.#options.commandTimeoutMs);
    } catch (error) {
      // A refusal from the server (wrong type, not an integer) is a bug to surface as is; anything else is the connection.
      if (error instanceof ErrorReply) throw error;
      // Replies still owed would pile up behind a stuck connection; the next call starts a fresh one.
      if (error instanceof DeadlineError) this.#discard(client);
      throw storeUnavailable(this.kind, error);
    }
  }

  #discard(client: Client): void {
    if (this.#client === client) this.#client = undefined;
    destroy(client);
  }

  async #ready(): Promise<Client> {
    if (this.#closed) throw new StoreClosedError(this.kind);
    // isOpen stays true while reconnecting, so commands queue (bounded by their timeout) through a short blip.
    if (this.#client?.isOpen) return this.#client;
    this.#client = undefined;
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<Client> {
    const client = connectClient(this.#options);
    // Without a listener an 'error' event throws and takes the whole process down; failures reach callers as rejections instead.
    client.on("error", () => {});
    try {
      await withDeadline(client.connect(), this.#options.connectDeadlineMs);
    } catch (error) {
      destroy(client);
      throw storeUnavailable(this.kind, error);
    }
    if (this.#closed) {
      await shutDown(client, this.#options.commandTimeoutMs);
      throw new StoreClosedError(this.kind);
    }
    this.#client = client;
    return client;
  }
}

/** close() waits for owed replies, which a dead server never sends; past the deadline, drop them. */
async function shutDown(client: Client, ms: number): Promise<void> {
  if (!client.isOpen) return;
  try {
    await withDeadline(client.close(), ms);
  } catch {
    destroy(client);
  }
}

function destroy(client: Client): void {
  try {
    client.destroy();
  } catch {
    // Already closed: nothing left to release.
  }
}

class DeadlineError extends Error {
  constructor(ms: number) {
    super(`No answer within ${ms} ms.`);
    this.name = "DeadlineError";
  }
}

/** Promise.race keeps a handler on the loser, so an operation rejecting after its deadline is never an unhandled rejection. */
async function withDeadline<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
  });
  try {
    return await Promise.race([operation, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
