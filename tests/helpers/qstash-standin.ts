import { createHash, createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * QStash at its HTTP boundary, for tests (QStash's own dev server downloads a binary, which cannot run here): the
 * part of the publish API `@upstash/qstash`'s `Client.publishJSON` uses (`POST /v2/publish/<url>`, its
 * `Upstash-Deduplication-Id`, `Upstash-Retries`, `Upstash-Delay` and `Upstash-Forward-*` headers), and deliveries
 * signed as QStash signs them, which the package's `Receiver` verifies: `Upstash-Signature` a JWT (HS256, the current
 * signing key) whose claims are `iss: "Upstash"`, `sub` the destination URL, `body` the body's SHA-256 (base64url),
 * `iat`, `nbf`, `exp`, `jti`. A delivery answered with anything but 2xx, or not at all, is retried up to the
 * message's retries, with backoff. The test can drop, delay and duplicate deliveries.
 *
 * Written by hand: no package implements QStash's server side; the JWT is three base64url parts and one HMAC.
 */

export interface QStashStandin {
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** What the next deliveries do; merged into the current behaviour. */
  behave: (change: Partial<Behaviour>) => void;
  /** Every delivery made: the message, which try of it, and the answer's status (0: no answer). */
  deliveries: () => Array<{ messageId: string; body: string; attempt: number; status: number }>;
  /** Messages published, deduplicated ones included. */
  published: () => Array<{ messageId: string; deduplicationId?: string; deduplicated: boolean; body: string }>;
  /** Signs `body` for `url` as QStash would (with `key`: another key makes a bad signature). */
  sign: (url: string, body: string, key?: string) => string;
  /** Until no delivery is running or waiting. */
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

export interface Behaviour {
  /** Each delivery is made this many more times at once (the copies count as answered whatever they answer). */
  duplicates: number;
  /** The next N deliveries are dropped: never sent, and not retried (a message lost). */
  dropNext: number;
  /** Each delivery waits this long first. */
  delayMs: number;
  /** Backoff before a retry: this times 2^(try-1). */
  retryBackoffMs: number;
  /** A delivery not answered within this is a failed try. */
  deliveryTimeoutMs: number;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export async function startQStashStandin(): Promise<QStashStandin> {
  const token = `standin-${randomUUID()}`;
  const currentSigningKey = `sig_${randomUUID()}`;
  const nextSigningKey = `sig_${randomUUID()}`;
  let behaviour: Behaviour = {
    duplicates: 0,
    dropNext: 0,
    delayMs: 0,
    retryBackoffMs: 200,
    deliveryTimeoutMs: 600_000,
  };
  const deliveries: Array<{ messageId: string; body: string; attempt: number; status: number }> = [];
  const published: Array<{ messageId: string; deduplicationId?: string; deduplicated: boolean; body: string }> = [];
  const dedup = new Map<string, string>();
  const running = new Set<Promise<void>>();

  const sign = (url: string, body: string, key = currentSigningKey) => {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const claims = b64url(
      JSON.stringify({
        iss: "Upstash",
        sub: url,
        exp: now + 300,
        nbf: now,
        iat: now,
        jti: randomUUID(),
        body: createHash("sha256").update(body).digest("base64url"),
      }),
    );
    const mac = createHmac("sha256", key).update(`${header}.${claims}`).digest("base64url");
    return `${header}.${claims}.${mac}`;
  };

  const deliverOnce = async (
    messageId: string,
    url: string,
    body: string,
    headers: Record<string, string>,
    attempt: number,
  ) => {
    const entry = { messageId, body, attempt, status: 0 };
    deliveries.push(entry);
    try {
      const response = await fetch(url, {
        method: "POST",
        body,
        headers: {
          ...headers,
          "content-type": "application/json",
          "upstash-signature": sign(url, body),
          "upstash-message-id": messageId,
          "upstash-retried": String(attempt - 1),
        },
        signal: AbortSignal.timeout(behaviour.deliveryTimeoutMs),
      });
      await response.arrayBuffer();
      entry.status = response.status;
    } catch {
      entry.status = 0;
    }
    return entry.status;
  };

  const deliver = async (
    messageId: string,
    url: string,
    body: string,
    headers: Record<string, string>,
    retries: number,
    delayMs: number,
  ) => {
    if (behaviour.dropNext > 0) {
      behaviour.dropNext--;
      return;
    }
    await sleep(delayMs + behaviour.delayMs);
    for (let attempt = 1; attempt <= retries + 1; attempt++) {
      const copies = Array.from({ length: behaviour.duplicates }, () =>
        deliverOnce(messageId, url, body, headers, attempt),
      );
      const status = await deliverOnce(messageId, url, body, headers, attempt);
      await Promise.all(copies);
      if (status >= 200 && status < 300) return;
      if (attempt <= retries) await sleep(behaviour.retryBackoffMs * 2 ** (attempt - 1));
    }
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const prefix = "/v2/publish/";
      if (request.method !== "POST" || !request.url?.startsWith(prefix)) {
        response.writeHead(404).end(JSON.stringify({ error: "not found" }));
        return;
      }
      if (request.headers.authorization !== `Bearer ${token}`) {
        response.writeHead(401).end(JSON.stringify({ error: "unauthorized" }));
        return;
      }
      const url = decodeURIComponent(request.url.slice(prefix.length));
      const deduplicationId = header(request, "upstash-deduplication-id");
      const known = deduplicationId === undefined ? undefined : dedup.get(deduplicationId);
      if (known) {
        published.push({ messageId: known, deduplicationId, deduplicated: true, body });
        response.writeHead(201, { "content-type": "application/json" });
        response.end(JSON.stringify({ messageId: known, deduplicated: true }));
        return;
      }
      const messageId = `msg_${randomUUID()}`;
      if (deduplicationId !== undefined) dedup.set(deduplicationId, messageId);
      published.push({ messageId, deduplicationId, deduplicated: false, body });
      const forwarded: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (name.startsWith("upstash-forward-") && typeof value === "string")
          forwarded[name.slice("upstash-forward-".length)] = value;
      const retries = Number(header(request, "upstash-retries") ?? 3);
      const delay = header(request, "upstash-delay");
      const delayMs = delay ? Number(delay.replace(/s$/, "")) * 1000 : 0;
      const delivery = deliver(messageId, url, body, forwarded, retries, delayMs);
      running.add(delivery);
      void delivery.finally(() => running.delete(delivery));
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ messageId }));
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    currentSigningKey,
    nextSigningKey,
    behave: (change) => (behaviour = { ...behaviour, ...change }),
    deliveries: () => deliveries,
    published: () => published,
    sign,
    idle: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const header = (request: IncomingMessage, name: string) => {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}
