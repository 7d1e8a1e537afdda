// Token counting for context budgets. The stated tokenizer is OpenAI's o200k_base (the GPT-4o,
// GPT-4.1 and GPT-5 family), through gpt-tokenizer (pure JS, no network, no native code). Other
// models tokenize differently (English prose typically lands within about 15 % of this count),
// so a budget is exact for that family and a close estimate for the rest.
//
// The encoder's tables take ~150 ms to load, so they are loaded on the first count, not when the
// module is imported: `sm` commands and processes that never build a context never pay for them.
// Loading goes through createRequire so that bundlers leave the package where it is installed.
import { createRequire } from 'node:module';

export const TOKENIZER = 'o200k_base';

type Encoder = { countTokens(text: string): number };
let encoder: Encoder | null = null;

function load(): Encoder {
  encoder ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as Encoder;
  return encoder;
}

// Counts of recently rendered lines: the same facts and turns come back in context after context.
const CACHE_SIZE = 20_000;
const cache = new Map<string, number>();

/** Tokens of `text` under o200k_base. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const known = cache.get(text);
  if (known !== undefined) return known;
  const n = load().countTokens(text);
  if (text.length > 2_000) return n; // long texts are rare: not worth the memory
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(text, n);
  return n;
}
