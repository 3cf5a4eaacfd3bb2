import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, request, type Dispatcher } from "undici";
import { ApiError } from "@/lib/ground/errors";

/**
 * Fetching a document from a URL a client gave us, without letting that
 * client reach our own network (SSRF). Every hop is resolved here, every
 * resolved address is checked, and the socket can only be opened to an
 * address that passed the check: the agent's connector refuses unknown hosts
 * and its lookup answers from the checked set instead of asking DNS again,
 * so a second, rebinding answer never reaches `connect()`.
 *
 * Resolution, the address check, the pinned connector and the redirect loop
 * stay together: they are one guarantee, and apart a hop could be fetched
 * without its check.
 */

interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has; tests inject a fake so no real DNS is involved. */
export type LookupHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Which addresses a client's URL may reach: document URLs and webhook URLs share it. */
export interface AddressPolicy {
  /** Tests only (URL_FETCH_ALLOW_PRIVATE): skips the address policy entirely. */
  allowPrivate: boolean;
  /** Replaces `isPublicAddress`, so tests can treat some loopback addresses as public and others as not. */
  isAllowedAddress?: (ip: string) => boolean;
  lookup?: LookupHost;
}

export interface FetchDocumentOptions extends AddressPolicy {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
}

export interface FetchedDocument {
  bytes: Uint8Array;
  contentType?: string;
  filename?: string;
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parse("2000::");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse("64:ff9b::");

/**
 * True only for addresses that are plain public unicast. Anything ipaddr.js
 * puts in a special range is refused, and IPv6 must also sit in 2000::/3:
 * ipaddr.js calls everything it has no name for "unicast", which would let
 * e.g. the IPv4-compatible ::7f00:1 through.
 */
export function isPublicAddress(ip: string): boolean {
  // net.isIP first: ipaddr.js also accepts shorthand like "127.1" that no resolver returns.
  const family = isIP(ip);
  if (family === 0) return false;
  // A zone ID only exists on scoped (link-local style) addresses, none of them public.
  if (ip.includes("%")) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ipaddr.js parses "::a.b.c.d" as IPv4-mapped (it is IPv4-compatible, ::/96), so IPv6
    // goes through the WHATWG host parser first, which yields the canonical hex form.
    addr = ipaddr.parse(family === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip);
  } catch {
    return false;
  }
  if (addr instanceof ipaddr.IPv4) return addr.range() === "unicast";
  if (addr.isIPv4MappedAddress()) return isPublicAddress(addr.toIPv4Address().toString());
  // NAT64 (RFC 6052 well-known prefix) reaches whatever IPv4 it embeds; IPv6-only hosts see public sites this way.
  if (addr.match(NAT64_WELL_KNOWN, 96)) {
    const p = addr.parts;
    const embedded = `${(p[6] ?? 0) >> 8}.${(p[6] ?? 0) & 0xff}.${(p[7] ?? 0) >> 8}.${(p[7] ?? 0) & 0xff}`;
    return isPublicAddress(embedded);
  }
  // 6to4 and Teredo embed IPv4 endpoints and are deprecated; refusing them (range !== "unicast") costs nothing.
  return addr.range() === "unicast" && addr.match(IPV6_GLOBAL_UNICAST, 3);
}

/**
 * The addresses of `url`'s host, every one allowed by `policy` (else `url_forbidden`, or `url_unresolvable`):
 * what a pinned agent (`createPinnedAgent`) may then connect to for that host.
 */
export async function resolveAllowed(url: URL, policy: AddressPolicy, signal: AbortSignal): Promise<readonly string[]> {
  const allowed = policy.allowPrivate ? () => true : (policy.isAllowedAddress ?? isPublicAddress);
  const host = bareHostname(url);
  const addresses = await abortable(resolveHost(host, policy.lookup ?? systemLookup), signal);
  // The address stays out of the message: echoing it would turn this API into an internal-DNS oracle.
  if (addresses.some((ip) => !allowed(ip)))
    throw new ApiError("url_forbidden", `The URL's host ${host} is not a public address.`);
  return addresses;
}

export async function fetchDocument(url: string, options: FetchDocumentOptions): Promise<FetchedDocument> {
  const controller = new AbortController();
  const timeoutError = new ApiError("url_timeout", `Fetching the URL took longer than ${options.timeoutMs} ms.`);
  const timer = setTimeout(() => controller.abort(timeoutError), options.timeoutMs);
  const signal = controller.signal;

  // hostname (as undici passes it to the connector) -> addresses that passed the policy for the current hop
  const checked = new Map<string, readonly string[]>();
  const agent = createPinnedAgent(checked);

  try {
    let current = parseFetchUrl(url);
    for (let hop = 0; ; hop++) {
      const host = bareHostname(current);
      checked.delete(host);
      checked.set(host, await resolveAllowed(current, options, signal));

      const res = await request(current, {
        method: "GET",
        dispatcher: agent,
        signal,
        headers: { "user-agent": "Chunkwise/0.1 (document fetcher)", accept: "*/*", "accept-encoding": "identity" },
      });

      if (REDIRECT_STATUSES.has(res.statusCode)) {
        discard(res.body);
        if (hop >= options.maxRedirects)
          throw new ApiError("too_many_redirects", `The URL redirected more than ${options.maxRedirects} times.`);
        const location = headerValue(res.headers.location);
        if (!location)
          throw new ApiError("url_fetch_failed", `The URL answered ${res.statusCode} without a Location header.`);
        current = parseFetchUrl(location, current);
        continue;
      }

      if (res.statusCode < 200 || res.statusCode > 299) {
        discard(res.body);
        throw new ApiError("url_fetch_failed", `The URL answered with HTTP status ${res.statusCode}.`);
      }

      const declared = Number(headerValue(res.headers["content-length"]));
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        discard(res.body);
        throw tooLarge(options.maxBytes);
      }

      const bytes = await readLimited(res.body, options.maxBytes);
      const disposition = headerValue(res.headers["content-disposition"]);
      return {
        bytes,
        contentType: headerValue(res.headers["content-type"])?.trim() || undefined,
        filename:
          (disposition ? filenameFromDisposition(disposition) : undefined) ?? filenameFromPath(current.pathname),
        finalUrl: withoutCredentials(current),
      };
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw timeoutError;
    throw new ApiError("url_fetch_failed", "Could not fetch the URL.", { cause: err });
  } finally {
    clearTimeout(timer);
    await agent.destroy().catch(() => undefined);
  }
}

export function parseFetchUrl(raw: string, base?: URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw, base);
  } catch {
    throw new ApiError(
      "invalid_url",
      base ? "The URL redirected to an unparsable location." : "The URL could not be parsed.",
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ApiError("invalid_url", `Only http and https URLs can be fetched, not ${parsed.protocol}`);
  return parsed;
}

/** The host as undici hands it to the connector: brackets stripped from IPv6 literals. */
export function bareHostname(url: URL): string {
  const h = url.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

async function resolveHost(host: string, resolve: LookupHost): Promise<readonly string[]> {
  // WHATWG URL parsing already turned 2130706433, 0x7f.1 and friends into dotted quads, so literals are caught here.
  if (isIP(host) !== 0) return [host];
  let found: readonly ResolvedAddress[];
  try {
    found = await resolve(host);
  } catch (err) {
    throw new ApiError("url_unresolvable", `The URL's host ${host} could not be resolved.`, { cause: err });
  }
  const addresses = found.map((a) => a.address);
  if (addresses.length === 0) throw new ApiError("url_unresolvable", `The URL's host ${host} has no addresses.`);
  return addresses;
}

const systemLookup: LookupHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * One agent per fetch, because its lookup answers from this fetch's checked
 * set. The connector refuses any host without a checked entry, so even an
 * undici code path we did not anticipate cannot open an unchecked socket.
 */
export function createPinnedAgent(checked: ReadonlyMap<string, readonly string[]>): Agent {
  const pinnedLookup = (
    hostname: string,
    opts: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const family =
      opts.family === 4 || opts.family === "IPv4" ? 4 : opts.family === 6 || opts.family === "IPv6" ? 6 : 0;
    const list = (checked.get(hostname) ?? [])
      .map((address) => ({ address, family: isIP(address) }))
      .filter((a) => family === 0 || a.family === family);
    const first = list[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`No checked address for ${hostname}`);
      err.code = "ENOTFOUND";
      callback(err, "");
      return;
    }
    if (opts.all) callback(null, list);
    else callback(null, first.address, first.family);
  };

  const connect = buildConnector({ lookup: pinnedLookup });
  return new Agent({
    connect: (opts, callback) => {
      const allowed = checked.get(opts.hostname);
      if (!allowed || (isIP(opts.hostname) !== 0 && !allowed.includes(opts.hostname))) {
        callback(new ApiError("url_forbidden", `Refusing to connect to unchecked host ${opts.hostname}.`), null);
        return;
      }
      connect(opts, callback);
    },
  });
}

/** Rejects as soon as the signal fires; the underlying work (e.g. a DNS query) cannot be cancelled and is left to finish. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Counts bytes as they arrive: Content-Length may be absent or lie. */
async function readLimited(body: ResponseBody, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk);
    }
  } finally {
    // A no-op after a complete read; on a throw it closes the socket instead of draining the rest.
    discard(body);
  }
  // A fresh buffer, not Buffer.concat: small Buffers share Node's pool, and callers may hand `.buffer` on.
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

type ResponseBody = Dispatcher.ResponseData["body"];

/**
 * undici turns a plain destroy() of an unfinished body into an "aborted"
 * error event; nobody is left to listen, and unheard it would crash the process.
 */
export function discard(body: ResponseBody): void {
  body.on("error", () => undefined);
  body.destroy();
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("url_too_large", `The document at the URL is larger than ${maxBytes} bytes.`);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** RFC 6266: filename* (RFC 8187, carries a charset) wins over plain filename. */
export function filenameFromDisposition(header: string): string | undefined {
  const extended = /filename\*\s*=\s*([^';]*)'[^']*'([^;]*)/i.exec(header);
  if (extended) {
    const charset = (extended[1] ?? "").trim().toLowerCase();
    const encoded = (extended[2] ?? "").trim().replace(/^"(.*)"$/, "$1");
    const decoded = charset === "utf-8" ? safeDecode(encoded) : latin1Decode(encoded);
    const name = decoded === undefined ? undefined : cleanFilename(decoded);
    if (name) return name;
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(header);
  if (plain) return cleanFilename(plain[1] !== undefined ? plain[1].replace(/\\(.)/g, "$1") : (plain[2] ?? ""));
  return undefined;
}

function filenameFromPath(pathname: string): string | undefined {
  const last = pathname.split("/").pop() ?? "";
  const decoded = safeDecode(last);
  return decoded === undefined ? undefined : cleanFilename(decoded);
}

/** Only a display name: strip any directories a server put in, control characters, and absurd lengths. */
function cleanFilename(name: string): string | undefined {
  const base = (name.split(/[/\\]/).pop() ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  return base && base !== "." && base !== ".." ? base : undefined;
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function latin1Decode(s: string): string {
  return s.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Credentials in a URL are a secret of the client's; the result may be stored or echoed. */
function withoutCredentials(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}
