import { Readable, Transform } from "node:stream";
import busboy from "busboy";
import { ApiError } from "@/lib/errors";
import { type BodyReadRules, timedChunks } from "@/lib/http/body-deadline";

export interface Upload {
  /** Absent when the body has no `file` part (a request naming an `upload_id` instead). */
  file?: { bytes: Uint8Array; filename?: string; contentType?: string };
  fields: Record<string, string>;
}

const tooLarge = (maxBytes: number) =>
  new ApiError("file_too_large", `The upload is larger than the limit of ${maxBytes} bytes.`);

/**
 * Reads a multipart body with at most one `file` part. The byte limit is enforced on
 * the bytes as they arrive (never trusting Content-Length), so a huge upload
 * is cut off after `maxBytes` instead of being buffered; and within `rules`' deadline
 * (lib/http/body-deadline.ts), so a trickled body is cut off too.
 */
export async function readUpload(
  request: Request,
  options: { maxBytes: number; rules: BodyReadRules },
): Promise<Upload> {
  const { maxBytes } = options;
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("multipart/form-data"))
    throw new ApiError(
      "expected_multipart",
      "Send the document as multipart/form-data with a `file` field, or POST JSON {url, tier} to /api/chunk.",
    );
  if (!request.body)
    throw new ApiError("missing_file", "The request has no body: attach the document in a `file` field.");

  // Room for the multipart framing and small fields around the file itself.
  const bodyCap = maxBytes + 64 * 1024;
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > bodyCap) callback(tooLarge(maxBytes));
      else callback(null, chunk);
    },
  });

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { files: 1, fileSize: maxBytes, fields: 16, fieldSize: 4096, parts: 20 },
    });
  } catch {
    throw new ApiError("invalid_multipart", "The multipart body could not be parsed: check the Content-Type boundary.");
  }

  const source = Readable.from(timedChunks(request.body, options.rules), { objectMode: false });

  return new Promise<Upload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: { parts: Buffer[]; filename?: string; contentType?: string; truncated: boolean } | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      source.destroy();
      counter.destroy();
      reject(
        error instanceof ApiError
          ? error
          : new ApiError("invalid_multipart", "The multipart body is malformed or ended early."),
      );
    };

    parser.on("file", (name, stream, info) => {
      if (name !== "file" || file) {
        stream.resume();
        return;
      }
      const current = {
        parts: [] as Buffer[],
        filename: info.filename || undefined,
        contentType: info.mimeType || undefined,
        truncated: false,
      };
      file = current;
      stream.on("data", (part: Buffer) => current.parts.push(part));
      stream.on("limit", () => {
        current.truncated = true;
        fail(tooLarge(maxBytes));
      });
    });
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("error", fail);
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      resolve({
        file: file && {
          bytes: new Uint8Array(Buffer.concat(file.parts)),
          filename: file.filename,
          contentType: file.contentType,
        },
        fields,
      });
    });
    source.on("error", fail);
    counter.on("error", fail);
    source.pipe(counter).pipe(parser);
  });
}
