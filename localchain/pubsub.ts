import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { isSignature } from "@solana/kit";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { z } from "zod";
import { stringifyWithBigInts } from "@/localchain/json";
import { answerJsonRpc } from "@/localchain/jsonrpc";
import type { BlockEvent, Ledger } from "@/localchain/ledger";
import { RPC_CODES, RpcError, invalidParams } from "@/localchain/rpc-error";

/**
 * Solana's websocket API, the part clients wait on: `signatureSubscribe`
 * (one notification once the transaction is processed, then the
 * subscription ends, as on a node) and `slotSubscribe` (one per new block).
 * Every block is final at once, so commitments make no difference here.
 */
const MAX_MESSAGE_BYTES = 64 * 1024;

interface Subscriber {
  socket: WebSocket;
  id: number;
}

type Subscription = { kind: "signature"; signature: string } | { kind: "slot" };

export class PubSub {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly subscriptions = new Map<WebSocket, Map<number, Subscription>>();
  private readonly signatureWaiters = new Map<string, Map<number, Subscriber>>();
  private readonly slotSubscribers = new Map<number, Subscriber>();
  private nextId = 0;
  private readonly stopListening: () => void;

  constructor(private readonly ledger: Ledger) {
    this.server.on("connection", (socket) => this.accept(socket));
    this.stopListening = ledger.onBlock((event) => this.publish(event));
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(request, socket, head, (ws) => this.server.emit("connection", ws, request));
  }

  close(): void {
    this.stopListening();
    for (const socket of this.server.clients) socket.terminate();
    this.server.close();
  }

  private accept(socket: WebSocket): void {
    this.subscriptions.set(socket, new Map());
    socket.on("message", (data: RawData) => {
      this.receive(socket, data).catch(() => socket.terminate());
    });
    socket.on("close", () => this.forget(socket));
    socket.on("error", () => socket.terminate());
  }

  private async receive(socket: WebSocket, data: RawData): Promise<void> {
    const afterAnswer: (() => void)[] = [];
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : Buffer.from(data as ArrayBuffer).toString("utf8");
    const answer = await answerJsonRpc(text, async (method, params) =>
      this.call(socket, method, params, (then) => afterAnswer.push(then)),
    );
    if (answer !== null && socket.readyState === socket.OPEN) socket.send(answer);
    for (const then of afterAnswer) then();
  }

  private call(socket: WebSocket, method: string, params: unknown[], afterAnswer: (then: () => void) => void): unknown {
    const mine = this.subscriptions.get(socket);
    if (!mine) throw new RpcError(RPC_CODES.internalError, "connection closed");
    switch (method) {
      case "signatureSubscribe": {
        const parsed = z
          .tuple([
            z.string().refine((s) => isSignature(s), "Invalid signature"),
            z.object({}).loose().nullish().optional(),
          ])
          .safeParse(params);
        if (!parsed.success) throw invalidParams("expected [signature, config?]");
        const [signature] = parsed.data;
        const id = this.nextId++;
        const record = this.ledger.getTransaction(signature);
        if (record) {
          // Already processed: one notification right after the answer, then done.
          afterAnswer(() =>
            this.notify(socket, "signatureNotification", id, {
              context: { slot: record.slot },
              value: { err: record.err },
            }),
          );
          return id;
        }
        mine.set(id, { kind: "signature", signature });
        const waiters = this.signatureWaiters.get(signature) ?? new Map<number, Subscriber>();
        waiters.set(id, { socket, id });
        this.signatureWaiters.set(signature, waiters);
        return id;
      }
      case "slotSubscribe": {
        const id = this.nextId++;
        mine.set(id, { kind: "slot" });
        this.slotSubscribers.set(id, { socket, id });
        return id;
      }
      case "signatureUnsubscribe":
      case "slotUnsubscribe": {
        const parsed = z.tuple([z.number().int().nonnegative()]).safeParse(params);
        const id = parsed.success ? parsed.data[0] : -1;
        const subscription = mine.get(id);
        const kind = method === "slotUnsubscribe" ? "slot" : "signature";
        if (!subscription || subscription.kind !== kind) throw invalidParams("Invalid subscription id.");
        this.drop(socket, id);
        return true;
      }
      default:
        throw new RpcError(RPC_CODES.methodNotFound, "Method not found");
    }
  }

  private publish(event: BlockEvent): void {
    for (const { socket, id } of [...this.slotSubscribers.values()]) {
      this.notify(socket, "slotNotification", id, { parent: event.parent, root: event.slot, slot: event.slot });
    }
    for (const { signature, err } of event.transactions) {
      const waiters = this.signatureWaiters.get(signature);
      if (!waiters) continue;
      for (const { socket, id } of [...waiters.values()]) {
        this.notify(socket, "signatureNotification", id, { context: { slot: event.slot }, value: { err } });
        this.drop(socket, id);
      }
    }
  }

  private notify(socket: WebSocket, method: string, subscription: number, result: unknown): void {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(stringifyWithBigInts({ jsonrpc: "2.0", method, params: { result, subscription } }));
  }

  private drop(socket: WebSocket, id: number): void {
    const subscription = this.subscriptions.get(socket)?.get(id);
    if (!subscription) return;
    this.subscriptions.get(socket)?.delete(id);
    if (subscription.kind === "slot") {
      this.slotSubscribers.delete(id);
      return;
    }
    const waiters = this.signatureWaiters.get(subscription.signature);
    waiters?.delete(id);
    if (waiters?.size === 0) this.signatureWaiters.delete(subscription.signature);
  }

  private forget(socket: WebSocket): void {
    for (const id of [...(this.subscriptions.get(socket)?.keys() ?? [])]) this.drop(socket, id);
    this.subscriptions.delete(socket);
  }
}
