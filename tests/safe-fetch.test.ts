import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/ground/errors";
import {
  fetchDocument,
  filenameFromDisposition,
  isPublicAddress,
  type FetchDocumentOptions,
  type LookupHost,
} from "@/lib/fetch/safe-fetch";

// Every server here listens on 127.0.0.1 only. Addresses outside loopback appear
// in these tests solely as values the address check must refuse before any connect.

interface Hit {
  url: string;
  host: string | undefined;
}

let server: Server;
let port: number;
let base: string;
let hits: Hit[] = [];
let connections = 0;
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();
/** Whether the server saw each stalled request's connection closed: a timed-out fetch must not leave it open. */
const closedByClient = { hang: false, trickle: false, hugeDeclared: false };
let bigStream: { written: number; finished: boolean; closedEarly: boolean } = {
  written: 0,
  finished: false,
  closedEarly: false,
};

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://placeholder");
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const n = Number(chain[1]);
    if (n === 0) {
      res.writeHead(200, { "content-type": "text/plain" }).end("end of chain");
    } else {
      // Relative and absolute Locations alternate so both resolutions are exercised.
      const next = n % 2 === 0 ? `/chain/${n - 1}` : `http://127.0.0.1:${port}/chain/${n - 1}`;
      res.writeHead(302, { location: next }).end();
    }
    return;
  }
  switch (url.pathname) {
    case "/docs/report.txt":
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello world");
      return;
    case "/download":
      res
        .writeHead(200, {
          "content-type": "application/pdf",
          "content-disposition": `attachment; filename="../../etc/plain.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
        })
        .end("%PDF-1.7");
      return;
    case "/redirect": {
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
      return;
    }
    case "/missing":
      res.writeHead(404).end("nope");
      return;
    case "/hang":
      closedByClient.hang = false;
      res.on("close", () => (closedByClient.hang = true));
      return; // never answers
    case "/trickle": {
      res.writeHead(200, { "content-type": "text/plain" });
      const t = setInterval(() => res.write("x"), 20);
      timers.add(t);
      closedByClient.trickle = false;
      res.on("close", () => {
        clearInterval(t);
        closedByClient.trickle = true;
      });
      return;
    }
    case "/big": {
      bigStream = { written: 0, finished: false, closedEarly: false };
      const state = bigStream;
      // No Content-Length: chunked, so only counting while reading can stop it.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const total = 5 * 1024 * 1024;
      const pump = () => {
        while (state.written < total) {
          state.written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        state.finished = true;
        res.end();
      };
      res.on("close", () => {
        if (!res.writableFinished) state.closedEarly = true;
      });
      pump();
      return;
    }
    case "/huge-declared":
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": String(10 * 1024 * 1024 * 1024),
      });
      res.write("only a few bytes, then silence"); // a reader that ignores Content-Length would wait for the timeout
      closedByClient.hugeDeclared = false;
      res.on("close", () => (closedByClient.hugeDeclared = true));
      return;
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ url: req.url ?? "", host: req.headers.host });
    route(req, res);
  });
  server.on("connection", (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits = [];
  connections = 0;
});

const open: FetchDocumentOptions = { timeoutMs: 5000, maxBytes: 1024 * 1024, allowPrivate: true, maxRedirects: 5 };
const strict: FetchDocumentOptions = { ...open, allowPrivate: false };
/** "Only 127.0.0.1 is public": lets a loopback server stand in for the internet while other addresses play private ones. */
const only127 = (ip: string) => ip === "127.0.0.1";

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the fetch to fail");
}

function recordingLookup(answers: Record<string, string[][]>): LookupHost & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    const n = calls.filter((c) => c === hostname).length;
    calls.push(hostname);
    const list = answers[hostname];
    const answer = list?.[Math.min(n, list.length - 1)];
    if (!answer) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

describe("isPublicAddress", () => {
  const table: [string, boolean][] = [
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["2606:4700::1111", true],
    ["2001:4860:4860::8888", true],
    ["10.0.0.1", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["192.168.1.1", false],
    ["127.0.0.1", false],
    ["127.255.255.254", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["192.0.2.1", false],
    ["240.0.0.1", false],
    ["::", false],
    ["::1", false],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["fc00::1", false],
    ["fd12:3456::1", false],
    ["ff02::1", false],
    ["::ffff:10.0.0.1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:8.8.8.8", true],
    ["::127.0.0.1", false], // IPv4-compatible (::/96), not mapped
    ["::8.8.8.8", false], // ipaddr.js alone would read this as mapped 8.8.8.8
    ["::7f00:1", false], // ipaddr.js calls it "unicast"; only the 2000::/3 rule refuses it
    ["::ffff:7f00:1", false],
    ["2001:db8::1", false],
    ["2002:a00:1::1", false], // 6to4 wrapping 10.0.0.1
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false], // Teredo
    ["64:ff9b::8.8.8.8", true],
    ["64:ff9b::10.0.0.1", false],
    ["64:ff9b::127.0.0.1", false],
    ["127.1", false], // shorthand no resolver returns
    ["localhost", false],
    ["", false],
  ];
  it.each(table)("%s -> %s", (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe("filenameFromDisposition", () => {
  it("prefers filename*, decodes it and drops directories", () => {
    expect(filenameFromDisposition(`attachment; filename="a.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`)).toBe(
      "résumé.pdf",
    );
    expect(filenameFromDisposition(`attachment; filename="..\\\\x\\\\b.txt"`)).toBe("b.txt");
    expect(filenameFromDisposition(`inline; filename=plain.csv`)).toBe("plain.csv");
    expect(filenameFromDisposition(`inline`)).toBeUndefined();
  });
});

describe("fetchDocument with allowPrivate (test setting)", () => {
  it("returns bytes, content type and the path's file name", async () => {
    const doc = await fetchDocument(`${base}/docs/report.txt`, open);
    expect(new TextDecoder().decode(doc.bytes)).toBe("hello world");
    expect(doc.bytes).toBeInstanceOf(Uint8Array);
    expect(doc.contentType).toBe("text/plain; charset=utf-8");
    expect(doc.filename).toBe("report.txt");
    expect(doc.finalUrl).toBe(`${base}/docs/report.txt`);
  });

  it("takes the file name from Content-Disposition", async () => {
    const doc = await fetchDocument(`${base}/download`, open);
    expect(doc.filename).toBe("résumé.pdf");
    expect(doc.contentType).toBe("application/pdf");
  });

  it("follows a chain of 3 redirects, relative and absolute", async () => {
    const doc = await fetchDocument(`${base}/chain/3`, open);
    expect(new TextDecoder().decode(doc.bytes)).toBe("end of chain");
    expect(doc.finalUrl).toBe(`${base}/chain/0`);
    expect(doc.filename).toBe("0");
    expect(hits.map((h) => h.url)).toEqual(["/chain/3", "/chain/2", "/chain/1", "/chain/0"]);
  });

  it("follows exactly maxRedirects (5)", async () => {
    const doc = await fetchDocument(`${base}/chain/5`, open);
    expect(doc.finalUrl).toBe(`${base}/chain/0`);
    expect(hits).toHaveLength(6);
  });

  it("refuses a 6th redirect without requesting it", async () => {
    const err = await failure(fetchDocument(`${base}/chain/6`, open));
    expect(err.code).toBe("too_many_redirects");
    expect(err.status).toBe(400);
    expect(hits.length).toBeLessThanOrEqual(6);
    expect(hits.map((h) => h.url)).not.toContain("/chain/0");
  });

  it("refuses a redirect to a non-http scheme", async () => {
    const err = await failure(fetchDocument(`${base}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`, open));
    expect(err.code).toBe("invalid_url");
  });

  it("reports a non-2xx upstream status", async () => {
    const err = await failure(fetchDocument(`${base}/missing`, open));
    expect(err.code).toBe("url_fetch_failed");
    expect(err.message).toContain("404");
  });

  it("reports a refused connection as url_fetch_failed", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await failure(fetchDocument(`http://127.0.0.1:${closedPort}/`, open));
    expect(err.code).toBe("url_fetch_failed");
  });
});

describe("fetchDocument address policy (default)", () => {
  it.each([
    ["loopback literal", () => `http://127.0.0.1:${port}/docs/report.txt`],
    ["localhost", () => `http://localhost:${port}/docs/report.txt`],
    ["IPv6 loopback", () => `http://[::1]:${port}/docs/report.txt`],
    ["decimal host", () => `http://2130706433:${port}/docs/report.txt`],
    ["hex shorthand host", () => `http://0x7f.1:${port}/docs/report.txt`],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.1]:${port}/docs/report.txt`],
  ])("refuses %s before connecting", async (_name, url) => {
    const err = await failure(fetchDocument(url(), strict));
    expect(err.code).toBe("url_forbidden");
    expect(err.status).toBe(400);
    expect(connections).toBe(0);
    expect(hits).toHaveLength(0);
  });

  it.each(["ftp://127.0.0.1/x", "file:///etc/passwd", "javascript:alert(1)", "not a url", "http://"])(
    "refuses %s as invalid_url",
    async (url) => {
      const err = await failure(fetchDocument(url, strict));
      expect(err.code).toBe("invalid_url");
    },
  );

  it("reports an unresolvable host", async () => {
    const lookup = recordingLookup({});
    const err = await failure(fetchDocument("http://nowhere.invalid/", { ...strict, lookup }));
    expect(err.code).toBe("url_unresolvable");
    expect(lookup.calls).toEqual(["nowhere.invalid"]);
  });
});

describe("fetchDocument with an injected policy (only 127.0.0.1 counts as public)", () => {
  it("fetches from the allowed address", async () => {
    const doc = await fetchDocument(`${base}/docs/report.txt`, { ...strict, isAllowedAddress: only127 });
    expect(new TextDecoder().decode(doc.bytes)).toBe("hello world");
  });

  it("refuses a redirect to another loopback address", async () => {
    const seen: string[] = [];
    const policy = (ip: string) => (seen.push(ip), only127(ip));
    const err = await failure(
      fetchDocument(`${base}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/docs/report.txt`)}`, {
        ...strict,
        isAllowedAddress: policy,
      }),
    );
    expect(err.code).toBe("url_forbidden");
    expect(seen).toEqual(["127.0.0.1", "127.0.0.2"]);
    expect(hits.map((h) => h.url)).toEqual([
      `/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/docs/report.txt`)}`,
    ]);
  });

  it("refuses a redirect to a private address in the check, not by trying it", async () => {
    const seen: string[] = [];
    const policy = (ip: string) => (seen.push(ip), only127(ip));
    const err = await failure(
      fetchDocument(`${base}/redirect?to=${encodeURIComponent("http://10.0.0.1/")}`, {
        ...strict,
        isAllowedAddress: policy,
      }),
    );
    expect(err.code).toBe("url_forbidden");
    // The policy saw 10.0.0.1 and said no; a connect attempt would instead end in url_fetch_failed or url_timeout.
    expect(seen).toEqual(["127.0.0.1", "10.0.0.1"]);
  });

  it("refuses a host when any one of its addresses is not allowed", async () => {
    const lookup = recordingLookup({ localhost: [["127.0.0.1", "::1"]] });
    const err = await failure(
      fetchDocument(`${base}/redirect?to=${encodeURIComponent(`http://localhost:${port}/docs/report.txt`)}`, {
        ...strict,
        isAllowedAddress: only127,
        lookup,
      }),
    );
    expect(err.code).toBe("url_forbidden");
    expect(lookup.calls).toEqual(["localhost"]);
    expect(hits).toHaveLength(1);
  });

  it("connects to the checked address, not a second DNS answer (rebinding)", async () => {
    // The second answer is loopback too, so even a broken implementation would only knock on 127.0.0.2.
    const lookup = recordingLookup({ "rebind.test": [["127.0.0.1"], ["127.0.0.2"]] });
    const doc = await fetchDocument(`http://rebind.test:${port}/docs/report.txt`, {
      ...strict,
      isAllowedAddress: only127,
      lookup,
    });
    expect(new TextDecoder().decode(doc.bytes)).toBe("hello world");
    expect(lookup.calls).toEqual(["rebind.test"]);
    expect(hits).toEqual([{ url: "/docs/report.txt", host: `rebind.test:${port}` }]);
    expect(doc.finalUrl).toBe(`http://rebind.test:${port}/docs/report.txt`);
  });

  it("re-resolves and re-checks the same host on every hop", async () => {
    const lookup = recordingLookup({ "rebind.test": [["127.0.0.1"], ["127.0.0.2"]] });
    const err = await failure(
      fetchDocument(`http://rebind.test:${port}/redirect?to=/docs/report.txt`, {
        ...strict,
        isAllowedAddress: only127,
        lookup,
      }),
    );
    expect(err.code).toBe("url_forbidden");
    expect(lookup.calls).toEqual(["rebind.test", "rebind.test"]);
    expect(hits).toHaveLength(1);
  });
});

describe("fetchDocument limits", () => {
  // The time allowed is the one asked for (the message names it), and the connection is closed, not left waiting.
  it("times out a server that never answers", async () => {
    const err = await failure(fetchDocument(`${base}/hang`, { ...open, timeoutMs: 300 }));
    expect(err.code).toBe("url_timeout");
    expect(err.status).toBe(400);
    expect(err.message).toContain("300 ms");
    await expect.poll(() => closedByClient.hang).toBe(true);
  });

  it("times out a server that trickles bytes forever", async () => {
    const err = await failure(fetchDocument(`${base}/trickle`, { ...open, timeoutMs: 300 }));
    expect(err.code).toBe("url_timeout");
    expect(err.message).toContain("300 ms");
    await expect.poll(() => closedByClient.trickle).toBe(true);
  });

  it("times out a DNS lookup that never returns", async () => {
    const lookup: LookupHost = () => new Promise(() => undefined);
    const err = await failure(fetchDocument("http://slow.test/", { ...strict, timeoutMs: 200, lookup }));
    expect(err.code).toBe("url_timeout");
  });

  it("stops reading a 5 MB chunked body at a 1 MB limit", async () => {
    const err = await failure(fetchDocument(`${base}/big`, { ...open, maxBytes: 1024 * 1024 }));
    expect(err.code).toBe("url_too_large");
    expect(err.status).toBe(413);
    await expect.poll(() => bigStream.closedEarly).toBe(true);
    expect(bigStream.finished).toBe(false);
  });

  it("accepts a body right at the limit", async () => {
    const doc = await fetchDocument(`${base}/docs/report.txt`, { ...open, maxBytes: "hello world".length });
    expect(doc.bytes.byteLength).toBe(11);
  });

  it("refuses a huge Content-Length without reading the body", async () => {
    // A reader waiting for the body would end in url_timeout: the server sends a few bytes and then nothing.
    const err = await failure(fetchDocument(`${base}/huge-declared`, { ...open, timeoutMs: 5000 }));
    expect(err.code).toBe("url_too_large");
    await expect.poll(() => closedByClient.hugeDeclared).toBe(true);
  });
});
