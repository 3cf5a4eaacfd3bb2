import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@/lib/ground/sha256";

describe("sha256Hex", () => {
  it("is the bytes' SHA-256, computed once per byte array (an upload is hashed by several steps)", () => {
    const bytes = new Uint8Array(randomBytes(1024));
    const expected = createHash("sha256").update(bytes).digest("hex");
    expect(sha256Hex(bytes)).toBe(expected);
    // The second call answers from the first: changed bytes in the same array (which documents never are) show it.
    bytes[0] = bytes[0]! ^ 0xff;
    expect(sha256Hex(bytes)).toBe(expected);
    // Another array with the same bytes is hashed on its own.
    expect(sha256Hex(new Uint8Array(bytes))).toBe(createHash("sha256").update(bytes).digest("hex"));
  });
});
