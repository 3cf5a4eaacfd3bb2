import { randomBytes } from "node:crypto";

/**
 * Result and job ids are capabilities: whoever holds one reads the result,
 * with no account behind it. 128 random bits (32 hex digits after the tier
 * prefix) cannot be guessed or enumerated, where the 48 bits of the first
 * ids (`<prefix>_<12 hex>`) could be tried by the million within a result's
 * hour. Ids of that older form are no longer valid and answer 404.
 */
const RANDOM_BYTES = 16;

export const newCapabilityId = (prefix: string) => `${prefix}_${randomBytes(RANDOM_BYTES).toString("hex")}`;

/** The ids `newCapabilityId` makes for any of `prefixes`, and nothing else. */
export const capabilityIdPattern = (prefixes: readonly string[]) =>
  new RegExp(`^(?:${prefixes.join("|")})_[0-9a-f]{${RANDOM_BYTES * 2}}$`);
