import type { ApiInfo, ChunkOptions, OutputFormat } from "@/web/api-client";

/**
 * The options form's values as typed (strings, so a half-typed number is not
 * lost) and their validation against the limits `GET /api` announces, with
 * the same rules the service applies: whole numbers, max_tokens within
 * range, overlap at most half of max_tokens.
 */
export interface OptionsDraft {
  maxTokens: string;
  overlapTokens: string;
  outputFormat: OutputFormat;
}

export interface OptionsErrors {
  maxTokens?: string;
  overlapTokens?: string;
}

export const defaultDraft = (api: ApiInfo): OptionsDraft => ({
  maxTokens: String(api.defaults.max_tokens),
  overlapTokens: String(api.defaults.overlap_tokens),
  outputFormat: api.defaults.output_format,
});

const wholeNumber = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : null);

export function validateOptions(
  draft: OptionsDraft,
  api: ApiInfo,
): { options: ChunkOptions | null; errors: OptionsErrors } {
  const [min, max] = api.limits.max_tokens_range;
  const errors: OptionsErrors = {};
  const maxTokens = wholeNumber(draft.maxTokens);
  if (maxTokens === null) errors.maxTokens = `Enter a whole number of tokens from ${min} to ${max}.`;
  else if (maxTokens < min || maxTokens > max) errors.maxTokens = `Max tokens must be between ${min} and ${max}.`;

  const overlap = wholeNumber(draft.overlapTokens);
  if (overlap === null) errors.overlapTokens = "Enter a whole number of tokens (0 for no overlap).";
  else if (maxTokens !== null && overlap > Math.floor(maxTokens / 2))
    errors.overlapTokens = `Overlap can be at most half of max tokens (${Math.floor(maxTokens / 2)}).`;

  if (errors.maxTokens || errors.overlapTokens || maxTokens === null || overlap === null)
    return { options: null, errors };
  return { options: { max_tokens: maxTokens, overlap_tokens: overlap, output_format: draft.outputFormat }, errors };
}
