import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A JSON-RPC proxy in front of the local chain that remembers each method
 * called, so tests can assert that a refusal reached no RPC, and can swallow
 * or refuse sends to play a lost or rejected transaction.
 */

/** Forwards JSON-RPC to the chain and remembers each method called; can swallow sends to play a lost packet. */
export interface RecordingProxy {
  url: string;
  methods: string[];
  /** What happens to sendTransaction: forwarded, answered "sent" but dropped, or refused with a JSON-RPC error. */
  sends: "forward" | "drop" | "refuse";
  close: () => Promise<void>;
}

/** `genesisHash`: what getGenesisHash answers, to announce the local chain as another network. */
export async function startRecordingProxy(
  target: string,
  options: { genesisHash?: string } = {},
): Promise<RecordingProxy> {
  const state = { methods: [] as string[], sends: "forward" as RecordingProxy["sends"] };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const calls = [JSON.parse(body)].flat() as { id: unknown; method: string }[];
    state.methods.push(...calls.map((c) => c.method));
    if (options.genesisHash !== undefined && calls.length === 1 && calls[0]?.method === "getGenesisHash") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: calls[0].id, result: options.genesisHash }));
      return;
    }
    if (state.sends !== "forward" && calls.length === 1 && calls[0]?.method === "sendTransaction") {
      const answer =
        state.sends === "drop"
          ? { result: "1".repeat(64) }
          : { error: { code: -32003, message: "Transaction signature verification failure" } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: calls[0].id, ...answer }));
      return;
    }
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get methods() {
      return state.methods;
    },
    set methods(value) {
      state.methods = value;
    },
    get sends() {
      return state.sends;
    },
    set sends(value) {
      state.sends = value;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
