import { Readable, Transform } from "node:stream";
import busboy from "busboy";
import { ApiError } from "@/lib/ground/errors";
import { type BodyReadRules, timedChunks } from "@/lib/streams/body-deadline";

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
 * (lib/streams/body-deadline.ts), so a trickled body is cut off too.
 */
export async function readUpload(
  request: Request,
  options: { maxBytes: number; rules: BodyReadRules },
): Promise<Upload> {
  const { files, fields } = await readParts(request, { ...options, maxFiles: 1 });
  return { file: files[0], fields };
}

/** A batch's multipart body: up to `maxFiles` `file` parts, `maxBytes` in all (one more part is refused). */
export async function readUploads(
  request: Request,
  options: { maxBytes: number; maxFiles: number; rules: BodyReadRules },
): Promise<{ files: NonNullable<Upload["file"]>[]; fields: Record<string, string> }> {
  return readParts(request, {
    ...options,
    tooManyFiles: () =>
      new ApiError("invalid_request", `A batch takes at most ${options.maxFiles} documents (BATCH_MAX_DOCUMENTS).`),
  });
}

async function readParts(
  request: Request,
  options: { maxBytes: number; maxFiles: number; rules: BodyReadRules; tooManyFiles?: () => ApiError },
): Promise<{ files: NonNullable<Upload["file"]>[]; fields: Record<string, string> }> {
  const { maxBytes, maxFiles } = options;
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
      limits: { files: maxFiles, fileSize: maxBytes, fields: 16, fieldSize: 4096, parts: maxFiles + 19 },
    });
  } catch {
    throw new ApiError("invalid_multipart", "The multipart body could not be parsed: check the Content-Type boundary.");
  }

  const source = Readable.from(timedChunks(request.body, options.rules), { objectMode: false });

  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: { parts: Buffer[]; filename?: string; contentType?: string; truncated: boolean }[] = [];
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
      // Past `maxFiles` file parts busboy emits no more (its `files` limit), so only the name is checked here.
      if (name !== "file") {
        stream.resume();
        return;
      }
      const current = {
        parts: [] as Buffer[],
        filename: info.filename || undefined,
        contentType: info.mimeType || undefined,
        truncated: false,
      };
      files.push(current);
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
    const { tooManyFiles } = options;
    if (tooManyFiles) parser.on("filesLimit", () => fail(tooManyFiles()));
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      resolve({
        files: files.map((file) => ({
          bytes: new Uint8Array(Buffer.concat(file.parts)),
          filename: file.filename,
          contentType: file.contentType,
        })),
        fields,
      });
    });
    source.on("error", fail);
    counter.on("error", fail);
    source.pipe(counter).pipe(parser);
  });
}
