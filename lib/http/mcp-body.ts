import type { Config } from "@/lib/ground/config";
import { ApiError } from "@/lib/ground/errors";
import { readBodyBytes } from "@/lib/streams/body-deadline";

/** A base64 file of the largest upload, plus the JSON-RPC around it. */
export const mcpBodyLimit = (config: Pick<Config, "limits">) =>
  Math.ceil(config.limits.maxUploadBytes / 3) * 4 + 64 * 1024;

const tooLarge = (limit: number) =>
  new ApiError(
    "file_too_large",
    `The MCP request body is larger than ${limit} bytes (a base64 file of the largest upload and its JSON-RPC).`,
  );

/**
 * The MCP request with its body read: refused (413) on a declared or arrived size over the limit, or (408) when it
 * arrives too slowly, before the SDK parses any of it. The request handed on carries the bytes read.
 */
export async function readMcpBody(request: Request, config: Pick<Config, "limits" | "bodyRead">): Promise<Request> {
  const limit = mcpBodyLimit(config);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) throw tooLarge(limit);
  const bytes = await readBodyBytes(request.body, {
    maxBytes: limit,
    rules: config.bodyRead,
    tooLarge: () => tooLarge(limit),
  });
  return new Request(request.url, { method: request.method, headers: request.headers, body: bytes as BodyInit });
}
