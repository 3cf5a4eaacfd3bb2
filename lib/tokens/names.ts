/** The tokenizers a request may measure in, by name: apart from lib/tokens/tokenizers.ts so wire schemas and the browser import no vocabulary. */
export const TOKENIZER_NAMES = ["o200k_base", "cl100k_base", "llama3"] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];
export const DEFAULT_TOKENIZER: TokenizerName = "o200k_base";
