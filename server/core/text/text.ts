// Text normalisation shared by dedupe, forget and the FTS/LIKE query builders.

const NON_ASCII = /[^\x00-\x7f]/;
export const hasNonAscii = (text: string) => NON_ASCII.test(text);
const APOSTROPHE = /['’]/;
export const hasApostrophe = (text: string) => APOSTROPHE.test(text);

/** Lowercase, punctuation stripped, whitespace collapsed: the exact-duplicate key. */
export function normalizeText(text: string): string {
  // NFKC leaves ASCII unchanged; skipping it for ASCII text halves the cost on the search path.
  return (NON_ASCII.test(text) ? text.normalize('NFKC') : text)
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function tokens(text: string): string[] {
  const normalized = normalizeText(text);
  return normalized ? normalized.split(' ') : [];
}

/**
 * Words as the FTS5 index sees them (unicode61 splits at apostrophes): "O'Brien" is o + brien,
 * and the clitic after an apostrophe ('s, n't, 'm, 've, 'll, 're, 'd) is dropped, so "Gina's" is
 * gina and "don't" is don. normalizeText's joined forms (obrien) are never in the index.
 */
export function indexTokens(text: string): string[] {
  if (!hasApostrophe(text)) return tokens(text);
  return tokens(text.replace(/['’](?:s|t|m|ve|ll|re|d)(?![\p{L}\p{N}])/giu, '').replace(/['’]/g, ' '));
}

/** Jaccard overlap of the token sets of two texts, in [0, 1]. */
export function jaccard(a: string, b: string): number {
  const left = new Set(tokens(a));
  const right = new Set(tokens(b));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared++;
  return shared / (left.size + right.size - shared);
}

/**
 * A safe FTS5 MATCH expression from user text: every token is a quoted string, so
 * quotes, operators (AND/OR/NOT/NEAR), column filters, parentheses and `*` are plain words.
 * Returns null when the text has no searchable token.
 */
export function ftsMatchExpression(text: string, join: 'all' | 'any' = 'all'): string | null {
  const words = [...new Set(indexTokens(text))].slice(0, 64);
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replace(/"/g, '""')}"`).join(join === 'all' ? ' ' : ' OR ');
}

/** Escapes LIKE wildcards; use with `ESCAPE '\'`. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
