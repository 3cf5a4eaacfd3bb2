import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/**
 * What every log line of a request carries, without passing it down every call: its id, and once the chunking
 * handler knows it, the tier (for the request's metrics). Work a request starts after its answer (a job's worker)
 * runs in the same scope, so its lines carry the id of the request that started it.
 */
export interface RequestScope {
  readonly requestId: string;
  tier?: string;
}

// On globalThis: Next.js may instantiate this module once per route bundle, and server.mjs loads its own copy (whose
// logger, made first, is the process's); every copy must read the one storage the handlers write.
const holder = globalThis as typeof globalThis & { __chunkwiseRequestScope?: AsyncLocalStorage<RequestScope> };
const storage = (holder.__chunkwiseRequestScope ??= new AsyncLocalStorage<RequestScope>());

/** An incoming X-Request-Id is kept when it is a plain token of sane length: it is echoed and logged, never parsed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export function requestIdFrom(headers: Headers): string {
  const incoming = headers.get("x-request-id")?.trim();
  return incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function inRequestScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Notes the tier of the request in progress (the chunking routes learn it from the path or the body). */
export function noteTier(tier: string): void {
  const scope = storage.getStore();
  if (scope) scope.tier = tier;
}
