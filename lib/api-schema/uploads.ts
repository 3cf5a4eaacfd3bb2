/** Wire shapes of two-step uploads: `POST /api/uploads` and what it answers, and the answer to the bytes' `PUT`. */
import { z } from "zod";
import { capabilityIdPattern } from "@/lib/ground/capability-id";

export const UPLOAD_ID_PREFIX = "upl";
export const UPLOAD_ID_PATTERN = capabilityIdPattern([UPLOAD_ID_PREFIX]);

export const UploadIdSchema = z.string().regex(UPLOAD_ID_PATTERN).meta({
  description:
    "An upload made with `POST /api/uploads` (`upl_<32 hex>`): pass it to a chunking request instead of `file` or `url`. Kept as long as a result.",
  example: "upl_3f9c0a1b2c3d4e5f60718293a4b5c6d7",
});

const Sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits")
  .meta({ description: "The bytes' SHA-256, hex." });

export const CreateUploadRequestSchema = z.object({
  filename: z
    .string()
    .min(1)
    .max(255)
    .meta({ description: "The document's name; its extension tells Markdown from plain text.", example: "report.pdf" }),
  content_type: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a media type such as application/pdf")
    .meta({ description: "The document's media type, e.g. `application/pdf`.", example: "application/pdf" }),
  size: z.number().int().positive().meta({ description: "The document's size in bytes.", example: 10_485_760 }),
  sha256: Sha256Hex.optional().meta({
    description: "Optional: the bytes' SHA-256 (hex); bytes that differ are refused (`upload_mismatch`).",
  }),
});
export type CreateUploadRequest = z.infer<typeof CreateUploadRequestSchema>;

/** Where the bytes go: to this service (`PUT`), or to Vercel Blob by its client upload. */
const UploadTargetSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("put"),
      method: z.literal("PUT"),
      url: z.url().meta({ description: "PUT the raw bytes here (any Content-Type), in one request." }),
    }),
    z.object({
      kind: z.literal("blob"),
      pathname: z.string().meta({ description: "The Blob pathname to upload to; no other is allowed." }),
      handle_upload_url: z.url().meta({
        description:
          "The `handleUploadUrl` for `upload()` of `@vercel/blob/client`, called with `clientPayload` set to the `upload_id`.",
      }),
      access: z.enum(["private", "public"]).meta({ description: "The `access` to pass to `upload()`." }),
    }),
  ])
  .meta({ id: "UploadTarget" });

export const UploadCreatedSchema = z
  .object({
    upload_id: UploadIdSchema,
    expires_at: z.string().meta({ description: "When the upload (and its bytes) is forgotten, ISO 8601." }),
    max_bytes: z.number().int().meta({ description: "The largest document this server takes." }),
    target: UploadTargetSchema,
  })
  .meta({ id: "UploadCreated" });
export type UploadCreated = z.infer<typeof UploadCreatedSchema>;

export const UploadStoredSchema = z
  .object({
    upload_id: UploadIdSchema,
    size: z.number().int(),
    sha256: Sha256Hex,
    expires_at: z.string(),
  })
  .meta({ id: "UploadStored" });
export type UploadStored = z.infer<typeof UploadStoredSchema>;
