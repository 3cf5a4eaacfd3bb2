import { z } from "zod";
import { OUTPUT_FORMATS } from "@/lib/formats";
import { TIER_IDS } from "@/lib/tiers";

/**
 * Wire shapes of the chunking requests, validated at the boundary. Sizes are
 * checked against the configured bounds in `resolveOptions`, since those come
 * from config rather than being constants.
 */
const tokens = z.coerce.number({ error: "must be a whole number" }).int("must be a whole number");

export const ChunkOptionsSchema = z.object({
  max_tokens: tokens.optional(),
  overlap_tokens: tokens.optional(),
  output_format: z.enum(OUTPUT_FORMATS).optional(),
});
export type ChunkOptionsInput = z.infer<typeof ChunkOptionsSchema>;

export const UrlChunkRequestSchema = ChunkOptionsSchema.extend({
  url: z.string().min(1).max(4096),
  tier: z.enum(TIER_IDS).default("structure"),
});
export type UrlChunkRequest = z.infer<typeof UrlChunkRequestSchema>;

/** Turns a zod failure into one readable sentence for the 400 message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
}
