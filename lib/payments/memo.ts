import { getBase58Encoder } from "@solana/kit";
import {
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  MEMO_PROGRAM_ADDRESS,
} from "@solana-program/memo";

/**
 * Where a 402's reference travels: a Memo instruction. Three Memo programs
 * are in use (old wallets use v1, wallets and `@x402/svm` v2, and
 * `@solana-program/memo`'s default builder the newest), and a payment must
 * be bound whichever carries it: a memo we failed to see would make a
 * transfer look memo-less, payable for any document.
 */
export const MEMO_PROGRAMS: ReadonlySet<string> = new Set([
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  MEMO_PROGRAM_ADDRESS,
]);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A memo's text from its instruction data. Every Memo program refuses data
 * that is not UTF-8, so null here means a transaction that cannot have run.
 */
export function memoText(data: Uint8Array): string | null {
  try {
    return utf8.decode(data).trim();
  } catch {
    return null;
  }
}

/** The same from RPC `jsonParsed` output, which gives undecoded instruction data in base58. */
export function memoTextFromBase58(data: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(getBase58Encoder().encode(data));
  } catch {
    return null;
  }
  return memoText(bytes);
}
