import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { mainThreadTurn } from "@/lib/ground/main-thread-turns";

/** Holds the thread for `ms`, as decoding a large upload does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("main-thread turns", () => {
  it("runs queued steps in order, each in a later turn of the event loop than the one before", async () => {
    const order: string[] = [];
    const steps = [1, 2, 3].map(async (k) => {
      await mainThreadTurn();
      order.push(`step ${k}`);
    });
    // Queued after the first turn: it runs in the same loop iteration as step 1, before step 2's.
    setImmediate(() => order.push("immediate"));
    await Promise.all(steps);
    expect(order).toEqual(["step 1", "immediate", "step 2", "step 3"]);
  });

  it("answers a request that arrives while large steps wait, between them rather than after all of them", async () => {
    const events: string[] = [];
    const server = createServer((_, response) => {
      events.push("request answered");
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const checked = fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
      const steps = Array.from({ length: 20 }, async (_, k) => {
        await mainThreadTurn();
        busy(10);
        events.push(`step ${k}`);
      });
      await Promise.all(steps);
      expect(await checked).toBe("ok");
      const answeredAt = events.indexOf("request answered");
      expect(answeredAt).toBeGreaterThanOrEqual(0);
      // Without turns every step would run before the server read the request (index 20).
      expect(answeredAt).toBeLessThan(15);
    } finally {
      server.close();
    }
  });
});
