import { z } from "zod";

/**
 * A named entity in a chunk's metadata (ai-pro): the wire shape the model's
 * answers are checked against (lib/ai/prompts.ts) and the formats write.
 */
export const ENTITY_TYPES = ["people", "organisations", "places", "dates", "products", "other"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const Entity = z.object({ text: z.string().min(1), type: z.enum(ENTITY_TYPES) });
export type Entity = z.infer<typeof Entity>;
