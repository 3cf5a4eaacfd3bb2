/**
 * The tiers: each one's record (lib/tiers/<id>.ts), in the order `GET /api`, the OpenAPI document and the page
 * list them. Read by the routes, the 402 builder, the orchestrators, `GET /api` and the CLI.
 */
import { ai } from "./ai";
import { aiPro } from "./ai-pro";
import { free } from "./free";
import { semantic } from "./semantic";
import { structure } from "./structure";
import type { TierRecord } from "./tier";
import { capabilityIdPattern } from "@/lib/ground/capability-id";

export type { SplitterKey, TierModel } from "./tier";

export const TIER_IDS = [free.id, structure.id, semantic.id, ai.id, aiPro.id] as const;
export type TierId = (typeof TIER_IDS)[number];

export type Tier = TierRecord<TierId>;

export const TIERS: Record<TierId, Tier> = { free, structure, semantic, ai, "ai-pro": aiPro };

/** The tier of a request that names none. */
export const DEFAULT_TIER: TierId = structure.id;

export const isPaid = (tier: Tier) => tier.priceBaseUnits > 0;

/** USDC base units to the spec's USD display ("0.002"). */
export const priceUsd = (tier: Tier) => (tier.priceBaseUnits / 1_000_000).toString();

/** Prefixes of stored result ids, each once. */
const RESULT_PREFIXES = [...new Set(TIER_IDS.map((id) => TIERS[id].resultPrefix))];

/** A stored result's id: one of the records' prefixes and a capability (lib/ground/capability-id.ts). */
export const RESULT_ID_PATTERN = capabilityIdPattern(RESULT_PREFIXES);
