import { getBase58Decoder, type Address } from "@solana/kit";
import { LEGACY_MEMO_PROGRAM_ADDRESS_V1, LEGACY_MEMO_PROGRAM_ADDRESS_V3 } from "@solana-program/memo";
import {
  getAssignInstructionDataDecoder,
  getCreateAccountInstructionDataDecoder,
  getTransferSolInstructionDataDecoder,
  identifySystemInstruction,
  SYSTEM_PROGRAM_ADDRESS,
  SystemInstruction,
} from "@solana-program/system";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  getBurnCheckedInstructionDataDecoder,
  getBurnInstructionDataDecoder,
  getInitializeAccount2InstructionDataDecoder,
  getInitializeAccount3InstructionDataDecoder,
  getMintToCheckedInstructionDataDecoder,
  getMintToInstructionDataDecoder,
  getTransferCheckedInstructionDataDecoder,
  getTransferInstructionDataDecoder,
  identifyTokenInstruction,
  TokenInstruction,
} from "@solana-program/token";
import { isTokenProgram, tokenProgramName, uiTokenAmount } from "@/localchain/token-state";

/**
 * Instructions as `encoding: "jsonParsed"` shows them: the programs a payment
 * touches (Memo, SPL Token, System, Associated Token) parsed like agave's
 * `parse_instruction`, everything else partially decoded with base58 data.
 */
export interface ResolvedInstruction {
  programId: Address;
  accounts: Address[];
  data: Uint8Array;
  /** null for top-level instructions, as the RPC writes them. */
  stackHeight: number | null;
}

const SYSVAR_RENT = "SysvarRent111111111111111111111111111111111";
/**
 * The memo programs agave's parser knows. Memo v4 (the default of
 * @solana-program/memo 0.15) runs on this chain but is shown undecoded, as a
 * node that does not know it would show it.
 */
const memoPrograms: ReadonlySet<string> = new Set([LEGACY_MEMO_PROGRAM_ADDRESS_V1, LEGACY_MEMO_PROGRAM_ADDRESS_V3]);
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function partiallyDecodedInstruction(ix: ResolvedInstruction): object {
  return {
    accounts: ix.accounts,
    data: getBase58Decoder().decode(ix.data),
    programId: ix.programId,
    stackHeight: ix.stackHeight,
  };
}

export function parseInstruction(ix: ResolvedInstruction): object {
  let parsed: unknown = null;
  let program = "";
  try {
    if (memoPrograms.has(ix.programId)) {
      program = "spl-memo";
      parsed = strictUtf8.decode(ix.data);
    } else if (isTokenProgram(ix.programId)) {
      program = tokenProgramName(ix.programId);
      parsed = parseTokenInstruction(ix.accounts, ix.data);
    } else if (ix.programId === SYSTEM_PROGRAM_ADDRESS) {
      program = "system";
      parsed = parseSystemInstruction(ix.accounts, ix.data);
    } else if (ix.programId === ASSOCIATED_TOKEN_PROGRAM_ADDRESS) {
      program = "spl-associated-token-account";
      parsed = parseAssociatedTokenInstruction(ix.accounts, ix.data);
    }
  } catch {
    parsed = null; // malformed data: shown undecoded, as the RPC does
  }
  if (parsed === null) return partiallyDecodedInstruction(ix);
  return { parsed, program, programId: ix.programId, stackHeight: ix.stackHeight };
}

class NotParsable extends Error {}

function need(accounts: Address[], count: number): void {
  if (accounts.length < count) throw new NotParsable(`expected ${count} accounts`);
}

/** Single authority, or a multisig account followed by its signers. */
function authority(name: string, accounts: Address[], index: number): Record<string, unknown> {
  need(accounts, index + 1);
  const signers = accounts.slice(index + 1);
  if (signers.length === 0) return { [name]: accounts[index] };
  return { [`multisig${name[0]!.toUpperCase()}${name.slice(1)}`]: accounts[index], signers };
}

function parseTokenInstruction(a: Address[], data: Uint8Array): object | null {
  switch (identifyTokenInstruction(data)) {
    case TokenInstruction.Transfer: {
      const { amount } = getTransferInstructionDataDecoder().decode(data);
      need(a, 3);
      return {
        type: "transfer",
        info: { source: a[0], destination: a[1], amount: amount.toString(), ...authority("authority", a, 2) },
      };
    }
    case TokenInstruction.TransferChecked: {
      const { amount, decimals } = getTransferCheckedInstructionDataDecoder().decode(data);
      need(a, 4);
      return {
        type: "transferChecked",
        info: {
          source: a[0],
          mint: a[1],
          destination: a[2],
          tokenAmount: uiTokenAmount(amount, decimals),
          ...authority("authority", a, 3),
        },
      };
    }
    case TokenInstruction.MintTo: {
      const { amount } = getMintToInstructionDataDecoder().decode(data);
      need(a, 3);
      return {
        type: "mintTo",
        info: { mint: a[0], account: a[1], amount: amount.toString(), ...authority("mintAuthority", a, 2) },
      };
    }
    case TokenInstruction.MintToChecked: {
      const { amount, decimals } = getMintToCheckedInstructionDataDecoder().decode(data);
      need(a, 3);
      return {
        type: "mintToChecked",
        info: {
          mint: a[0],
          account: a[1],
          tokenAmount: uiTokenAmount(amount, decimals),
          ...authority("mintAuthority", a, 2),
        },
      };
    }
    case TokenInstruction.Burn: {
      const { amount } = getBurnInstructionDataDecoder().decode(data);
      need(a, 3);
      return {
        type: "burn",
        info: { account: a[0], mint: a[1], amount: amount.toString(), ...authority("authority", a, 2) },
      };
    }
    case TokenInstruction.BurnChecked: {
      const { amount, decimals } = getBurnCheckedInstructionDataDecoder().decode(data);
      need(a, 3);
      return {
        type: "burnChecked",
        info: {
          account: a[0],
          mint: a[1],
          tokenAmount: uiTokenAmount(amount, decimals),
          ...authority("authority", a, 2),
        },
      };
    }
    case TokenInstruction.CloseAccount:
      need(a, 3);
      return { type: "closeAccount", info: { account: a[0], destination: a[1], ...authority("owner", a, 2) } };
    case TokenInstruction.InitializeAccount:
      need(a, 4);
      return { type: "initializeAccount", info: { account: a[0], mint: a[1], owner: a[2], rentSysvar: a[3] } };
    case TokenInstruction.InitializeAccount2: {
      const { owner } = getInitializeAccount2InstructionDataDecoder().decode(data);
      need(a, 3);
      return { type: "initializeAccount2", info: { account: a[0], mint: a[1], owner, rentSysvar: a[2] } };
    }
    case TokenInstruction.InitializeAccount3: {
      const { owner } = getInitializeAccount3InstructionDataDecoder().decode(data);
      need(a, 2);
      return { type: "initializeAccount3", info: { account: a[0], mint: a[1], owner } };
    }
    case TokenInstruction.InitializeImmutableOwner:
      need(a, 1);
      return { type: "initializeImmutableOwner", info: { account: a[0] } };
    case TokenInstruction.GetAccountDataSize:
      need(a, 1);
      return { type: "getAccountDataSize", info: { mint: a[0] } };
    case TokenInstruction.SyncNative:
      need(a, 1);
      return { type: "syncNative", info: { account: a[0] } };
    default:
      return null;
  }
}

function parseSystemInstruction(a: Address[], data: Uint8Array): object | null {
  switch (identifySystemInstruction(data)) {
    case SystemInstruction.TransferSol: {
      const { amount } = getTransferSolInstructionDataDecoder().decode(data);
      need(a, 2);
      return { type: "transfer", info: { source: a[0], destination: a[1], lamports: amount } };
    }
    case SystemInstruction.CreateAccount: {
      const { lamports, space, programAddress } = getCreateAccountInstructionDataDecoder().decode(data);
      need(a, 2);
      return {
        type: "createAccount",
        info: { source: a[0], newAccount: a[1], lamports, space, owner: programAddress },
      };
    }
    case SystemInstruction.Assign: {
      const { programAddress } = getAssignInstructionDataDecoder().decode(data);
      need(a, 1);
      return { type: "assign", info: { account: a[0], owner: programAddress } };
    }
    default:
      return null;
  }
}

function parseAssociatedTokenInstruction(a: Address[], data: Uint8Array): object | null {
  // An empty payload is the original `Create`, kept by the program for compatibility.
  const kind = data.length === 0 ? 0 : data.length === 1 ? data[0] : -1;
  const type = kind === 0 ? "create" : kind === 1 ? "createIdempotent" : null;
  if (!type) return null;
  need(a, 6);
  const info: Record<string, unknown> = {
    source: a[0],
    account: a[1],
    wallet: a[2],
    mint: a[3],
    systemProgram: a[4],
    tokenProgram: a[5],
  };
  if (a[6] === SYSVAR_RENT) info.rentSysvar = a[6];
  return { type, info };
}
