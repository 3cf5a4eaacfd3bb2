/** UTF-16 surrogate halves: splitters never cut between the two units of one code point. */
export const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
export const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
