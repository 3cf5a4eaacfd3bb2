import { describe, expect, it } from "vitest";
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
    const headers = new Headers({ "x-forwarded-for": "2001:db8:1:2::9, 10.0.0.1", [PEER_HEADER]: "::ffff:10.1.2.3" });
    expect(clientAddress(headers, { trustProxyHeaders: true })).toBe("2001:db8:1:2::/64");
    expect(clientAddress(headers, { trustProxyHeaders: false })).toBe("10.1.2.3");
    expect(clientAddress(new Headers(), { trustProxyHeaders: false })).toBe("unknown");
  });
});
