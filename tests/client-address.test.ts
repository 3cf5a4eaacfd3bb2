import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { PEER_HEADER, clientAddress, clientKey } from "@/lib/http/client-address";

describe("clientKey: the key a client is counted under", () => {
  it.each([
    ["2001:db8:aa:1::1", "2001:db8:aa:1::/64"],
    ["2001:DB8:AA:1:ffff:ffff:ffff:ffff", "2001:db8:aa:1::/64"],
    ["2001:0db8:00aa:0001:0000:0000:0000:0002", "2001:db8:aa:1::/64"],
    ["[2001:db8:aa:1::2]", "2001:db8:aa:1::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["2001:db8:aa:2::1", "2001:db8:aa:2::/64"],
    ["::ffff:198.51.100.7", "198.51.100.7"],
    ["198.51.100.7", "198.51.100.7"],
    ["not an address", "not an address"],
  ])("%s is counted as %s", (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it("applies to forwarded addresses when a trusted proxy sets them, and to the peer otherwise", () => {
    const headers = new Headers({
      "x-forwarded-for": "198.51.100.9, 2001:db8:1:2::9",
      [PEER_HEADER]: "::ffff:10.1.2.3",
    });
    expect(clientAddress(headers, trusting())).toBe("2001:db8:1:2::/64");
    expect(clientAddress(headers, untrusting)).toBe("10.1.2.3");
    expect(clientAddress(new Headers(), untrusting)).toBe("unknown");
  });
});

const untrusting = loadConfig({});
const trusting = (env: Record<string, string> = {}) => loadConfig({ TRUST_PROXY_HEADERS: "true", ...env });

describe("clientAddress behind trusted proxies", () => {
  const peer = { [PEER_HEADER]: "10.0.0.5" };

  it("takes the address the nearest trusted proxy appended (the rightmost), never one the client wrote", () => {
    // The client sent "X-Forwarded-For: 1.2.3.4"; the one trusted proxy appended the address it saw.
    const forged = new Headers({ ...peer, "x-forwarded-for": "1.2.3.4, 203.0.113.7" });
    expect(clientAddress(forged, trusting())).toBe("203.0.113.7");
    expect(clientAddress(new Headers({ ...peer, "x-forwarded-for": "203.0.113.7" }), trusting())).toBe("203.0.113.7");
  });

  it("with TRUSTED_PROXY_HOPS=2 takes the value the outer proxy wrote, two from the right", () => {
    const headers = new Headers({ ...peer, "x-forwarded-for": "1.2.3.4, 203.0.113.7, 10.0.0.2" });
    expect(clientAddress(headers, trusting({ TRUSTED_PROXY_HOPS: "2" }))).toBe("203.0.113.7");
    // Fewer values than trusted proxies: the request did not come through them all; the socket's peer counts.
    const short = new Headers({ ...peer, "x-forwarded-for": "203.0.113.7" });
    expect(clientAddress(short, trusting({ TRUSTED_PROXY_HOPS: "2" }))).toBe("10.0.0.5");
  });

  it("ignores X-Real-IP unless CLIENT_IP_HEADER names it", () => {
    const headers = new Headers({ ...peer, "x-real-ip": "1.2.3.4" });
    expect(clientAddress(headers, trusting())).toBe("10.0.0.5");
    expect(clientAddress(headers, trusting({ CLIENT_IP_HEADER: "x-real-ip" }))).toBe("1.2.3.4");
    const both = new Headers({ ...peer, "x-real-ip": "198.51.100.1", "x-forwarded-for": "1.2.3.4" });
    expect(clientAddress(both, trusting({ CLIENT_IP_HEADER: "x-real-ip" }))).toBe("198.51.100.1");
  });

  it("on Vercel reads x-vercel-forwarded-for, which its edge sets, and trusts it by default", () => {
    const vercel = loadConfig({
      VERCEL: "1",
      // Vercel runs jobs only through QStash (lib/ground/config.ts refuses it otherwise).
      QSTASH_TOKEN: "qstash-test-token",
      QSTASH_CURRENT_SIGNING_KEY: "sig_current",
      QSTASH_NEXT_SIGNING_KEY: "sig_next",
      PUBLIC_BASE_URL: "https://chunkwise.example",
    });
    expect(vercel.clientIp).toEqual({ header: "x-vercel-forwarded-for", hops: 1 });
    const headers = new Headers({ "x-vercel-forwarded-for": "203.0.113.8", "x-forwarded-for": "1.2.3.4" });
    expect(clientAddress(headers, vercel)).toBe("203.0.113.8");
  });

  it("refuses a header name it does not know", () => {
    expect(() => loadConfig({ CLIENT_IP_HEADER: "x-client-ip" })).toThrow(/CLIENT_IP_HEADER/);
  });
});
