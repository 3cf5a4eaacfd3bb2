import { ApiError } from "@/lib/errors";

const JSON_BODY_LIMIT = 64 * 1024;

/** The body as text, refused as soon as more than `maxBytes` have arrived rather than after buffering it all. */
async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += part.length;
    if (size > maxBytes) throw new ApiError("body_too_large", `The JSON body is larger than ${maxBytes} bytes.`);
    parts.push(part);
  }
  return Buffer.concat(parts).toString("utf8");
}

/** A JSON request body, capped at 64 KB; `usage` tells a client sending something else what this endpoint takes. */
export async function readJson(request: Request, usage: string): Promise<unknown> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().includes("application/json"))
    throw new ApiError("expected_json", usage);
  const text = await readText(request, JSON_BODY_LIMIT);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
}
