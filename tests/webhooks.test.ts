import http from "node:http";
import type { AddressInfo } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newJobId } from "@/lib/jobs/job-store";
import { type Services } from "@/lib/services";
import { createWebhookEndpoint } from "@/lib/webhooks/endpoint";
import { type JobWebhook, newJobWebhook } from "@/lib/webhooks/job-webhook";
import { InProcessWebhookScheduler } from "@/lib/webhooks/scheduler";
import { ORIGIN, call, connectMcp, json, newClient, prose, upload } from "./helpers/api";
import { serviceHarness } from "./helpers/service-harness";

/**
 * Signed webhooks for jobs, on a real redis-server: receivers on loopback (allowed, as for document URLs, by
 * URL_FETCH_ALLOW_PRIVATE=true) that verify with `standardwebhooks`' own `Webhook.verify`, fail the first two
 * tries, or never answer; a webhook_url on a private address refused at acceptance; the secret never in a status.
 */

let receiver: http.Server;
let hooks: string;

interface Received {
  path: string;
  body: string;
  headers: Record<string, string>;
  closed: boolean;
}
const received: Received[] = [];
/** Per path: the secret the receiver verifies with, given to it once the job is accepted. */
const secrets = new Map<string, { promise: Promise<string>; resolve: (secret: string) => void }>();
const secretFor = (path: string) => {
  let entry = secrets.get(path);
  if (!entry) {
    let resolve!: (secret: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    secrets.set(path, (entry = { promise, resolve }));
  }
  return entry;
};

/** Job work (runJob) runs as the harness's scheduled work; webhook tries detached, so a test can tell them apart. */
let scheduler: InProcessWebhookScheduler;
const h = serviceHarness({
  env: () => ({ URL_FETCH_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "50" }),
  overrides: (_, config) => ({
    webhookScheduler: (deliver) =>
      (scheduler = new InProcessWebhookScheduler({
        deliver,
        schedule: (work) => void work(),
        maxPending: config.webhooks.maxPending,
      })),
  }),
});

const status = async (jobId: string) => json(await call("GET", `/api/job/${jobId}/status`));

/** Polls (bounded) until the job's webhook leaves `pending`. */
async function webhookSettled(jobId: string, deadlineMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const body = await status(jobId);
    if (body.status !== "processing" && body.webhook?.state !== "pending") return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(
    `job ${jobId}'s webhook still pending after ${deadlineMs} ms: ${JSON.stringify(await status(jobId))}`,
  );
}

const textJob = (webhookUrl: string, client = newClient(), fields: Record<string, string> = {}) =>
  call("POST", "/api/chunk/free", {
    body: upload(prose(1), "notes.txt", { async: "true", webhook_url: webhookUrl, ...fields }),
    client,
  });

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const entry: Received = {
        path,
        body: Buffer.concat(chunks).toString("utf8"),
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        closed: false,
      };
      received.push(entry);
      res.on("close", () => (entry.closed = true));
      const tries = received.filter((r) => r.path === path).length;
      if (path.startsWith("/verify/")) {
        // A receiver as a client would write one: verified with the package, 401 when it does not verify.
        void secretFor(path).promise.then((secret) => {
          try {
            new Webhook(secret).verify(entry.body, entry.headers);
            res.writeHead(204).end();
          } catch {
            res.writeHead(401).end();
          }
        });
      } else if (path.startsWith("/flaky/")) {
        res.writeHead(tries <= 2 ? 500 : 200, { "content-type": "text/plain" }).end(tries <= 2 ? "down" : "ok");
      } else if (path.startsWith("/hang/")) {
        // Never answers: the try's deadline must end it.
      } else if (path === "/doc.txt") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(prose(1, 7));
      } else if (path === "/redirect") {
        res.writeHead(302, { location: "/verify/redirected" }).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);

afterEach(async () => {
  await h.drain();
  await scheduler?.idle();
});

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("a job's webhook", () => {
  it("POSTs the completed job's status, signed so that Webhook.verify accepts it; the secret is never in a status", async () => {
    h.use();
    const path = "/verify/1";
    const accepted = await textJob(`${hooks}${path}`);
    expect(accepted.status).toBe(200);
    const job = await json(accepted);
    expect(job.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    secretFor(path).resolve(job.webhook_secret);

    const done = await webhookSettled(job.job_id);
    expect(done).toMatchObject({
      status: "completed",
      webhook: { state: "delivered", attempts: 1, max_attempts: 5, last_status: 204 },
    });
    expect(JSON.stringify(done)).not.toContain(job.webhook_secret);

    const [delivery, ...more] = received.filter((r) => r.path === path);
    expect(more).toEqual([]);
    // The receiver answered 204 only because verify passed; checked here too, with a tampered body failing.
    const verifier = new Webhook(job.webhook_secret);
    const payload = verifier.verify(delivery!.body, delivery!.headers) as Record<string, any>;
    expect(() => verifier.verify(delivery!.body.replace("completed", "failed"), delivery!.headers)).toThrow();
    expect(() => new Webhook(newJobWebhook("x", 1).secret).verify(delivery!.body, delivery!.headers)).toThrow();
    expect(delivery!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(delivery!.headers["content-type"]).toBe("application/json");
    expect(payload).toMatchObject({
      success: true,
      job_id: job.job_id,
      status: "completed",
      progress: 100,
      result_id: done.result_id,
      download_url: done.download_url,
    });
    expect(payload).not.toHaveProperty("webhook");
    expect(delivery!.body).not.toContain(job.webhook_secret);
  });

  it("retries with backoff after two failures, under one webhook-id, each try signed afresh (JSON body route)", async () => {
    h.use();
    const path = "/flaky/1";
    const accepted = await call("POST", "/api/chunk", {
      body: JSON.stringify({ url: `${hooks}/doc.txt`, tier: "free", async: true, webhook_url: `${hooks}${path}` }),
      headers: { "content-type": "application/json" },
      client: newClient(),
    });
    expect(accepted.status).toBe(200);
    const job = await json(accepted);

    const done = await webhookSettled(job.job_id);
    expect(done.webhook).toMatchObject({ state: "delivered", attempts: 3, last_status: 200 });
    expect(done.webhook).not.toHaveProperty("last_error");
    const tries = received.filter((r) => r.path === path);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((t) => t.headers["webhook-id"])).size).toBe(1);
    const verifier = new Webhook(job.webhook_secret);
    for (const t of tries) expect(verifier.verify(t.body, t.headers)).toMatchObject({ job_id: job.job_id });
    expect(new Set(tries.map((t) => t.body)).size).toBe(1);
  });

  it("gives up on a receiver that never answers after WEBHOOK_MAX_ATTEMPTS timed-out tries, without holding the job's worker", async () => {
    const services = h.use({
      WEBHOOK_TIMEOUT_MS: "3000",
      WEBHOOK_MAX_ATTEMPTS: "2",
      CLIENT_MAX_ACTIVE_JOBS: "1",
    });
    const path = "/hang/1";
    const client = newClient();
    const job = await json(await textJob(`${hooks}${path}`, client));

    // The job's worker is done (and its client's place free) while the receiver still holds the first try open.
    await expect.poll(() => h.pending, { timeout: 60_000 }).toBe(0);
    const open = received.filter((r) => r.path === path);
    expect(open.every((r) => !r.closed)).toBe(true);
    expect((await status(job.job_id)).status).toBe("completed");
    const place = await services.clientJobs.take(client);
    expect(place).not.toBeNull();
    await services.clientJobs.release(place!);

    const done = await webhookSettled(job.job_id);
    expect(done.webhook).toMatchObject({ state: "exhausted", attempts: 2, max_attempts: 2, last_error: "timeout" });
    const tries = received.filter((r) => r.path === path);
    expect(tries).toHaveLength(2);
    await expect.poll(() => tries.every((r) => r.closed), { timeout: 10_000 }).toBe(true);
  });

  it("is POSTed when a job fails too: a job whose workers kept dying, failed by the poll that finds it", async () => {
    const services = h.use({ JOB_MAX_ATTEMPTS: "1" });
    const path = "/verify/abandoned";
    const webhook = newJobWebhook(`${hooks}${path}`, 5);
    secretFor(path).resolve(webhook.secret);
    const now = Date.now();
    const jobId = newJobId("free");
    await services.jobs.create({
      job_id: jobId,
      status: "processing",
      progress: 10,
      message: "Extracting text",
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 3_600_000).toISOString(),
      attempts: 1,
      cursor: 0,
      lease_owner: "a worker that died",
      lease_until: now - 1,
      work: {
        tier: "free",
        input: { kind: "url", url: `${hooks}/doc.txt` },
        options: { maxTokens: 512, overlapTokens: 64, outputFormat: "raw", includeNotes: true },
        api_base: `${ORIGIN}/api`,
        payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
      },
      webhook,
    });
    const done = await webhookSettled(jobId);
    expect(done).toMatchObject({ status: "failed", error: { code: "job_abandoned" } });
    expect(done.webhook).toMatchObject({ state: "delivered", attempts: 1, last_status: 204 });
    const [delivery] = received.filter((r) => r.path === path);
    expect(new Webhook(webhook.secret).verify(delivery!.body, delivery!.headers)).toMatchObject({
      job_id: jobId,
      status: "failed",
      error: { code: "job_abandoned" },
    });
  });

  it("is taken as an MCP chunk_document argument", async () => {
    h.use();
    const sdk = await connectMcp();
    const path = "/verify/mcp";
    const result = (await sdk.callTool({
      name: "chunk_document",
      arguments: { text: prose(1, 3), tier: "free", async: true, webhook_url: `${hooks}${path}` },
    })) as CallToolResult;
    await sdk.close();
    expect(result.isError).toBeFalsy();
    const job = result.structuredContent as Record<string, any>;
    expect(job.webhook_secret).toMatch(/^whsec_/);
    secretFor(path).resolve(job.webhook_secret);
    expect((await webhookSettled(job.job_id)).webhook).toMatchObject({ state: "delivered", last_status: 204 });
  });
});

describe("tries delivered by an engine", () => {
  /** A job record as a test writes it: ended (or not), with a webhook to `path`. */
  async function jobWith(
    services: Services,
    path: string,
    status: "processing" | "completed",
    webhook: Partial<JobWebhook> = {},
  ) {
    const now = Date.now();
    const jobId = newJobId("free");
    const hook = { ...newJobWebhook(`${hooks}${path}`, 5), ...webhook };
    secretFor(path).resolve(hook.secret);
    await services.jobs.create({
      job_id: jobId,
      status,
      progress: status === "completed" ? 100 : 10,
      message: status === "completed" ? "Completed" : "Extracting text",
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 3_600_000).toISOString(),
      attempts: 1,
      cursor: 0,
      lease_owner: "a worker",
      lease_until: now + 60_000,
      work: {
        tier: "free",
        input: { kind: "url", url: `${hooks}/doc.txt` },
        options: { maxTokens: 512, overlapTokens: 64, outputFormat: "raw", includeNotes: true },
        api_base: `${ORIGIN}/api`,
        payment: { amount: 0, asset: "USDC", network: "solana-localnet", transaction: null },
      },
      webhook: hook,
    });
    return { jobId, delivery: { job_id: jobId, attempt: 1, payload: JSON.stringify({ job_id: jobId }) } };
  }

  it("make a try delivered twice once, none for a job still processing, and again a try whose maker died", async () => {
    const services = h.use({ WEBHOOK_TIMEOUT_MS: "1000" });
    const tries = (path: string) => received.filter((r) => r.path === path).length;

    const twice = await jobWith(services, "/verify/twice", "completed");
    const both = await Promise.all([
      services.webhooks.deliver(twice.delivery),
      services.webhooks.deliver(twice.delivery),
    ]);
    // One made it; the other found it under way (an engine delivers that one again later) or already done.
    expect(both.filter((outcome) => outcome === "made")).toHaveLength(1);
    expect(both.filter((outcome) => outcome !== "made")[0]).toMatch(/^(in_progress|skipped)$/);
    expect(await services.webhooks.deliver(twice.delivery)).toBe("skipped");
    expect(tries("/verify/twice")).toBe(1);
    expect((await status(twice.jobId)).webhook).toMatchObject({ state: "delivered", attempts: 1 });

    const running = await jobWith(services, "/verify/running", "processing");
    const before = (await services.jobs.get(running.jobId))!.raw;
    expect(await services.webhooks.deliver(running.delivery)).toBe("skipped");
    expect(tries("/verify/running")).toBe(0);
    expect((await services.jobs.get(running.jobId))!.raw).toBe(before);

    // Claimed 3 s ago (past twice the 1 s deadline) and never finished: the engine's redelivery makes it.
    const died = await jobWith(services, "/verify/died", "completed", {
      attempts: 1,
      attempt_started_at: Date.now() - 3000,
    });
    expect(await services.webhooks.deliver(died.delivery)).toBe("made");
    expect(tries("/verify/died")).toBe(1);
    expect((await status(died.jobId)).webhook).toMatchObject({ state: "delivered", attempts: 1 });
  });
});

describe("webhook_url refused at acceptance", () => {
  it("on a private address (loopback, with URL_FETCH_ALLOW_PRIVATE off), before any page is taken", async () => {
    h.use({ URL_FETCH_ALLOW_PRIVATE: "false" });
    const client = newClient();
    const before = received.length;
    for (const url of [`${hooks}/verify/private`, "http://10.0.0.7/hook", "http://[::1]/hook"]) {
      const refused = await textJob(url, client);
      expect(refused.status).toBe(400);
      const body = await json(refused);
      expect(body).toMatchObject({ success: false, code: "webhook_url_refused" });
      expect(body.message).toContain("webhook_url");
    }
    expect(received.length).toBe(before);
    expect((await json(await call("GET", "/api/quota", { client }))).remaining).toBe(100);
  });

  it("when not http(s), and on a synchronous request (400 invalid_options naming async=true)", async () => {
    h.use();
    const notHttp = await textJob("ftp://example.com/hook");
    expect(notHttp.status).toBe(400);
    expect(await json(notHttp)).toMatchObject({ code: "webhook_url_refused" });

    const client = newClient();
    const sync = await call("POST", "/api/chunk/free", {
      body: upload(prose(1), "notes.txt", { webhook_url: `${hooks}/verify/sync` }),
      client,
    });
    expect(sync.status).toBe(400);
    const body = await json(sync);
    expect(body).toMatchObject({ code: "invalid_options" });
    expect(body.message).toContain("async=true");
    expect((await json(await call("GET", "/api/quota", { client }))).remaining).toBe(100);
  });
});

describe("a webhook try (the endpoint)", () => {
  it("checks the address again at each try: a host that resolved public at acceptance and private now is not reached", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const answers = ["127.0.0.1", "127.0.0.2"];
    const endpoint = createWebhookEndpoint({
      timeoutMs: 5000,
      // Only 127.0.0.1 counts as public here; the second answer stands for a rebinding to a private address.
      policy: {
        allowPrivate: false,
        isAllowedAddress: (ip) => ip === "127.0.0.1",
        lookup: async () => [{ address: answers.shift() ?? "127.0.0.2", family: 4 }],
      },
    });
    const url = `http://hooks.test:${port}/verify/rebound`;
    await endpoint.check(url);
    const before = received.length;
    expect(await endpoint.post(url, "{}", {})).toEqual({ ok: false, reason: "url_forbidden" });
    expect(received.length).toBe(before);
  });

  it("never follows a redirect", async () => {
    const endpoint = createWebhookEndpoint({ timeoutMs: 5000, policy: { allowPrivate: true } });
    const before = received.filter((r) => r.path === "/verify/redirected").length;
    expect(await endpoint.post(`${hooks}/redirect`, "{}", {})).toEqual({ ok: false, status: 302, reason: "redirect" });
    expect(received.filter((r) => r.path === "/verify/redirected").length).toBe(before);
  });
});
