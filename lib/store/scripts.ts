/**
 * INCRBY that sets the TTL only on the call that created the key, atomically,
 * so a counter's window is fixed at its first use. Testing PTTL == -1 rather
 * than "result == increment" also gives a TTL to a key someone wrote without
 * one, and works on every Redis version (PEXPIRE NX needs 7.0).
 * KEYS[1] key, ARGV[1] increment, ARGV[2] ttl in ms.
 */
export const INCR_BY_WITH_TTL = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return n
`;

/** Compare-and-delete, so releasing a claim never removes a claim someone else took after ours expired. KEYS[1] key, ARGV[1] expected value. */
export const DEL_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Compare-and-set, so a job's owner never overwrites a state someone else wrote after its lease lapsed. KEYS[1] key, ARGV[1] expected, ARGV[2] value, ARGV[3] ttl in ms. */
export const SET_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`;

/** PTTL's answer as the Store contract's: -2 absent; -1 (no expiry, never written by us) as Infinity. */
export function pttlToMs(pttl: number): number | null {
  if (pttl === -2) return null;
  if (pttl === -1) return Number.POSITIVE_INFINITY;
  return pttl;
}
