/** The x402 v1 `X-PAYMENT` payload of the exact scheme on Solana: its shape, its limits, and reading the header. */

import { type Address, type Transaction, address } from "@solana/kit";
import { z } from "zod";
import { accept, refuse, type Verdict } from "@/lib/payments/refusal";
import { isBase58Signature } from "@/lib/payments/signature";

/** Token-2022 shares TransferChecked's layout with the classic token program; the spec allows both. */
export const TOKEN_2022_PROGRAM_ADDRESS = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
/** Phantom and Solflare append guard instructions of this program; the spec allows them after the transfer. */
export const LIGHTHOUSE_PROGRAM_ADDRESS = address("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95");
/** The spec's cap: 5 lamports per compute unit, so a payer cannot make the fee payer buy priority. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
/**
 * Stricter than the spec, which caps only the price: the fee payer pays
 * limit × price, which fee-budget.ts bounds per tier. A USDC transfer (with
 * Memo and Lighthouse guards) needs well under 200k units.
 */
export const MAX_COMPUTE_UNIT_LIMIT = 200_000;
export const MIN_INSTRUCTIONS = 3;
export const MAX_INSTRUCTIONS = 7;

/** Solana's packet limit is 1232 bytes, 1644 characters of base64. */
const MAX_TRANSACTION_BASE64 = 1644;
const MAX_HEADER_CHARS = 8192;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The partially signed transaction both x402 versions carry in `payload.transaction`. */
export const X402TransactionSchema = z
  .string()
  .max(MAX_TRANSACTION_BASE64, "The transaction is larger than a Solana transaction can be.")
  .regex(BASE64, "The transaction must be base64.");

const X402PaymentSchema = z.object({
  x402Version: z.literal(1, { error: "x402Version must be 1." }),
  scheme: z.literal("exact", { error: "Only the exact scheme is accepted." }),
  network: z.string().min(1).max(64),
  payload: z.object({ transaction: X402TransactionSchema }),
});

/** The decoded X-PAYMENT header of an x402 client. */
export type X402Payment = z.infer<typeof X402PaymentSchema>;

/** A payment that passed every check and is ready for the fee payer's signature. */
export interface VerifiedX402 {
  /** Signed by the payer; the fee payer's slot is still empty. */
  transaction: Transaction;
  /** The wallet that signed the transfer (TransferChecked's authority). */
  payer: Address;
  amount: bigint;
  feePayer: Address;
  /** The network the payload named (what the client knows, e.g. `solana-devnet` on the local chain). */
  network: string;
  mint: Address;
  source: Address;
  destination: Address;
  /** Texts of the optional Memo instructions, in order. */
  memos: string[];
}

export interface CosignedX402 {
  /** The fee payer's signature, which is the transaction's id: known before anything is sent. */
  signature: string;
  wireTransaction: string;
}

/**
 * `null` when the header is not an x402 payload (the signature path then
 * reads it as the spec's base58 signature); a `payment_invalid` refusal when
 * it is base64 JSON but not a valid x402 exact payload.
 */
export function readX402Header(header: string): Verdict<X402Payment> | null {
  const value = header.trim();
  if (isBase58Signature(value)) return null;
  if (!BASE64.test(value)) return null;
  // Base64 JSON opens with "{" (maybe after whitespace); a look at the head is enough to tell it from anything else.
  if (!Buffer.from(value.slice(0, 16), "base64").toString("utf8").trimStart().startsWith("{")) return null;
  if (value.length > MAX_HEADER_CHARS)
    return refuse("payment_invalid", `The X-PAYMENT header is longer than ${MAX_HEADER_CHARS} characters.`);
  const text = Buffer.from(value, "base64").toString("utf8");

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse(
      "payment_invalid",
      "X-PAYMENT is base64 but not JSON: send an x402 payload or a base58 transaction signature.",
    );
  }
  const parsed = X402PaymentSchema.safeParse(json);
  if (parsed.success) return accept(parsed.data);
  const issue = parsed.error.issues[0];
  return refuse(
    "payment_invalid",
    `X-PAYMENT is not a valid x402 exact payload: ${issue ? `${issue.path.join(".") || "payload"}: ${issue.message}` : "malformed"}`,
  );
}

/** x402 v1 knows no local network: the 402 announces the local chain as devnet (see requirements.ts), so both names pay it. */
export function acceptedNetworks(required: string): string[] {
  return required === "solana-localnet" ? ["solana-localnet", "solana-devnet"] : [required];
}
