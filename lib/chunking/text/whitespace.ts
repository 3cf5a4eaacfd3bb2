/** \s as the regex engine (and the o200k pattern) sees it, for one UTF-16 code unit; fast for ASCII. */
const SPACE = /\s/;
export const isSpace = (code: number) =>
  code === 32 || (code >= 9 && code <= 13) || (code > 127 && SPACE.test(String.fromCharCode(code)));
