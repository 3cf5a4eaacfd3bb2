import { TokenIndex } from "@/lib/tokens";
import type { Scale } from "./metrics";

/**
 * Character offset → o200k token position in one fixed tokenization of the
 * whole document (the Chroma report's token-level measure). Inside a
 * pre-token (1–3 tokens, usually a word with its leading space) the position
 * is interpolated, so ranges that meet mid-word neither overlap nor leave a gap.
 */
export function tokenScale(text: string): { scale: Scale; total: number } {
  const index = new TokenIndex(text);
  const scale: Scale = (offset) => {
    if (offset <= 0) return 0;
    if (offset >= text.length) return index.total;
    const piece = index.pieceAt(offset);
    const start = index.pieceStart(piece);
    const before = index.tokensBefore(piece);
    if (start === offset) return before;
    const end = index.pieceStart(piece + 1);
    return before + ((index.tokensBefore(piece + 1) - before) * (offset - start)) / (end - start);
  };
  return { scale, total: index.total };
}
