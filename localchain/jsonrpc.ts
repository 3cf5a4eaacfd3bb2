import { z } from "zod";
import { stringifyWithBigInts } from "@/localchain/json";
import { RPC_CODES, RpcError } from "@/localchain/rpc-error";

/**
 * JSON-RPC 2.0 framing shared by the HTTP and websocket endpoints: single and
 * batch requests, notifications (no id, no answer), and errors in the shape a
 * Solana node answers with.
 */
export type MethodHandler = (method: string, params: unknown[]) => Promise<unknown>;

const MAX_BATCH = 256;
const Id = z.union([z.string(), z.number(), z.null()]);
const Envelope = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1),
  id: Id.optional(),
  params: z.unknown().optional(),
});

type Response = {
  jsonrpc: "2.0";
  id: z.infer<typeof Id>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

function errorResponse(error: RpcError, id: z.infer<typeof Id>): Response {
  return {
    jsonrpc: "2.0",
    error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
    id,
  };
}

async function answerOne(request: unknown, handler: MethodHandler): Promise<Response | null> {
  const envelope = Envelope.safeParse(request);
  if (!envelope.success) {
    const id = Id.safeParse((request as { id?: unknown } | null)?.id);
    return errorResponse(new RpcError(RPC_CODES.invalidRequest, "Invalid request"), id.success ? id.data : null);
  }
  const { method, params, id } = envelope.data;
  let response: Response;
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    response = errorResponse(
      new RpcError(RPC_CODES.invalidParams, "Invalid params: expected an array of parameters"),
      id ?? null,
    );
  } else {
    try {
      response = {
        jsonrpc: "2.0",
        result: await handler(method, (params as unknown[] | null | undefined) ?? []),
        id: id ?? null,
      };
    } catch (error) {
      if (!(error instanceof RpcError)) console.error(`local chain: ${method} failed`, error);
      response = errorResponse(
        error instanceof RpcError ? error : new RpcError(RPC_CODES.internalError, "Internal error"),
        id ?? null,
      );
    }
  }
  return id === undefined ? null : response;
}

/** Answers a request body; null when there is nothing to answer (only notifications). */
export async function answerJsonRpc(body: string, handler: MethodHandler): Promise<string | null> {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return stringifyWithBigInts(errorResponse(new RpcError(RPC_CODES.parseError, "Parse error"), null));
  }
  if (!Array.isArray(payload)) {
    const response = await answerOne(payload, handler);
    return response ? stringifyWithBigInts(response) : null;
  }
  if (payload.length === 0 || payload.length > MAX_BATCH) {
    return stringifyWithBigInts(errorResponse(new RpcError(RPC_CODES.invalidRequest, "Invalid request"), null));
  }
  // In order, one after another: a batch that sends and then queries sees its own transaction.
  const responses: Response[] = [];
  for (const request of payload) {
    const response = await answerOne(request, handler);
    if (response) responses.push(response);
  }
  return responses.length > 0 ? stringifyWithBigInts(responses) : null;
}
