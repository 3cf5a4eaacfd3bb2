import { encodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/ground/config";
import { createChainRpc } from "@/lib/payments/chain-rpc";
import { type Admission, type PaidRequest, PaymentGate } from "@/lib/payments/gate";
import type { PaymentHeader } from "@/lib/payments/payment-header";
import { paymentRequired } from "@/lib/payments/payment-required";
import { caip2Network } from "@/lib/payments/x402/v2";
import { MemoryStore } from "@/lib/store";
import { TIERS } from "@/lib/tiers";

/**
 * `admit()` answers a refusal as a value with its reason code, without HTTP and without the chain: every
 * refusal here is decided before anything is read from it (the RPC points at a closed port).
 */

const ENV = {
  SOLANA_NETWORK: "solana-devnet",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  PAY_TO_ADDRESS: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
};
const config = loadConfig(ENV);
const tier = TIERS.structure;

const gateFor = (env: Record<string, string> = ENV) => {
  const loaded = loadConfig(env);
  return new PaymentGate(loaded, new MemoryStore(), createChainRpc(loaded.payments.rpcUrl));
};

const request = (payment?: PaymentHeader): PaidRequest => ({
  client: "203.0.113.7",
  tier,
  document: "sha256:abc",
  request: "request-1",
  resource: "http://chunkwise.test/api/chunk/structure",
  resourceKind: "form-data",
  ...(payment ? { payment } : {}),
});

/** A v2 payload accepting this request's offer, with `change` applied to what it accepted. */
function v2Header(change: (accepted: Record<string, unknown>) => Record<string, unknown> = (a) => a): PaymentHeader {
  const accepted = {
    scheme: "exact",
    network: caip2Network(config.network),
    amount: String(tier.priceBaseUnits),
    asset: config.usdcMint,
    payTo: config.payTo,
    maxTimeoutSeconds: 120,
    extra: { name: "USDC", decimals: 6, tier: tier.id },
  };
  const payload = { x402Version: 2, accepted: change(accepted), payload: { transaction: "AQID" } };
  return { name: "PAYMENT-SIGNATURE", value: encodePaymentSignatureHeader(payload as never) };
}

function refusedCode(admission: Admission): string {
  expect(admission.kind).toBe("refused");
  return admission.kind === "refused" ? admission.code : admission.kind;
}

describe("PaymentGate.admit refusals", () => {
  it("a request without payment is refused with payment_required and an offer carrying a fresh reference", async () => {
    const admission = await gateFor().admit(request());
    expect(refusedCode(admission)).toBe("payment_required");
    if (admission.kind !== "refused") return;
    expect(admission.requirement.maxAmountRequired).toBe(String(tier.priceBaseUnits));
    expect(admission.requirement.extra.reference).toMatch(/\S/);
    expect(admission).toMatchObject({ resourceKind: "form-data", network: "solana-devnet" });
    // The one 402 is built from the value alone.
    const error = paymentRequired(admission);
    expect(error.status).toBe(402);
    expect(error.body).toMatchObject({ code: "payment_required", paymentRequirements: admission.requirement });
    expect(error.headers["PAYMENT-REQUIRED"]).toBeTruthy();
  });

  it("an X-PAYMENT that is neither a signature nor an x402 payload is refused with payment_invalid", async () => {
    const gate = gateFor();
    expect(refusedCode(await gate.admit(request({ name: "X-PAYMENT", value: "not a signature" })))).toBe(
      "payment_invalid",
    );
    const notX402 = Buffer.from(JSON.stringify({ x402Version: 1 })).toString("base64");
    expect(refusedCode(await gate.admit(request({ name: "X-PAYMENT", value: notX402 })))).toBe("payment_invalid");
  });

  it("a PAYMENT-SIGNATURE that is not a v2 exact payload is refused with payment_invalid", async () => {
    const admission = await gateFor().admit(request({ name: "PAYMENT-SIGNATURE", value: "%%%" }));
    expect(refusedCode(admission)).toBe("payment_invalid");
  });

  it.each([
    [
      "payment_wrong_network",
      (a: Record<string, unknown>) => ({ ...a, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }),
    ],
    ["payment_insufficient", (a: Record<string, unknown>) => ({ ...a, amount: "1" })],
    ["payment_amount_mismatch", (a: Record<string, unknown>) => ({ ...a, amount: String(tier.priceBaseUnits + 1) })],
    ["payment_wrong_recipient", (a: Record<string, unknown>) => ({ ...a, payTo: "11111111111111111111111111111111" })],
    ["payment_wrong_tier", (a: Record<string, unknown>) => ({ ...a, extra: { tier: TIERS.semantic.id } })],
  ])("a v2 payment accepting another offer is refused with %s", async (code, change) => {
    expect(refusedCode(await gateFor().admit(request(v2Header(change))))).toBe(code);
  });

  it("a v2 memo that is not a reference issued for this request is refused with payment_reference_mismatch", async () => {
    const header = v2Header((a) => ({ ...a, extra: { ...(a.extra as object), memo: "never-issued" } }));
    expect(refusedCode(await gateFor().admit(request(header)))).toBe("payment_reference_mismatch");
  });

  it("with PAYMENT_REQUIRE_REFERENCE, a v2 payment without a memo is refused with payment_reference_required", async () => {
    const gate = gateFor({ ...ENV, PAYMENT_REQUIRE_REFERENCE: "true" });
    expect(refusedCode(await gate.admit(request(v2Header())))).toBe("payment_reference_required");
  });

  it("a refusal of a payment still carries this request's reference, the same one the unpaid request got", async () => {
    const gate = gateFor();
    const unpaid = await gate.admit(request());
    const refused = await gate.admit(request({ name: "X-PAYMENT", value: "not a signature" }));
    expect(refused.kind === "refused" && refused.requirement.extra.reference).toBe(
      unpaid.kind === "refused" && unpaid.requirement.extra.reference,
    );
  });
});
