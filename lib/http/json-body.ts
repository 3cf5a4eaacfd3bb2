import { ApiError } from "@/lib/ground/errors";
import { type BodyReadRules, readBodyBytes } from "@/lib/streams/body-deadline";

const JSON_BODY_LIMIT = 64 * 1024;

/**
 * A JSON request body, capped at 64 KB (refused as soon as more has arrived) and read within `rules`' deadline;
 * `usage` tells a client sending something else what this endpoint takes.
 */
export async function readJson(
  request: Request,
  usage: string,
  rules: BodyReadRules,
  /** A batch's body carries its documents' text: it may be as large as an upload. */
  maxBytes = JSON_BODY_LIMIT,
): Promise<unknown> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().includes("application/json"))
    throw new ApiError("expected_json", usage);
  const bytes = await readBodyBytes(request.body, {
    maxBytes,
    rules,
    tooLarge: () => new ApiError("body_too_large", `The JSON body is larger than ${maxBytes} bytes.`),
  });
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
}
