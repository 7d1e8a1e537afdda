// The embedding client: any OpenAI-compatible /embeddings endpoint, built from the `embedding`
// config block (shaped like `llm`). Vectors come back unit-length at the configured size: a
// provider that ignores `dimensions` (or has no such parameter) is truncated and re-normalised,
// which is sound for Matryoshka-trained models and keeps the stored size fixed for the others.
import type { Config } from '../core/kernel/config.ts';
import { loadedOpenAi, openAiClient } from './openai.ts';

export type Embedder = {
  model: string;
  dimensions: number;
  batchSize: number;
  /** One vector per text; null for a text it cannot embed (the local word vectors: no known word). */
  embed(texts: string[]): Promise<(Float32Array | null)[]>;
  /** The local word vectors (../llm/word-vectors.ts): search embeds the query itself, in the core. */
  local?: boolean;
};

/** Truncates to `dimensions` and scales to unit length (cosine and dot product then agree). */
export function fitVector(values: ArrayLike<number>, dimensions: number): Float32Array {
  if (values.length < dimensions)
    throw new Error(`embedding has ${values.length} dimensions, fewer than the configured ${dimensions}`);
  const out = Float32Array.from({ length: dimensions }, (_, i) => Number(values[i]));
  let norm = 0;
  for (const v of out) norm += v * v;
  norm = Math.sqrt(norm);
  if (!Number.isFinite(norm) || norm === 0) throw new Error('embedding is a zero or non-finite vector');
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/**
 * Same key and endpoint rules as the LLM client: `api_key_env` (then OPENAI_API_KEY), `endpoint`
 * (then OPENAI_BASE_URL); a custom endpoint needs no key. Null when no model or no credentials.
 */
export function createEmbedder(config: Config['embedding'], env: NodeJS.ProcessEnv = process.env): Embedder | null {
  const client = openAiClient(config, env);
  if (!client) return null;
  // Some servers reject `dimensions` (models without Matryoshka training answer 400): then it is
  // asked for no more, and vectors are cut to size here instead.
  let sendDimensions = true;
  const request = async (texts: string[]) =>
    // Floats, not the SDK's default base64: not every compatible server implements base64.
    (await client()).embeddings.create({
      model: config.model,
      input: texts,
      encoding_format: 'float',
      ...(sendDimensions ? { dimensions: config.dimensions } : {}),
    });
  return {
    model: config.model,
    dimensions: config.dimensions,
    batchSize: config.batch_size,
    async embed(texts) {
      if (texts.length === 0) return [];
      const sent = sendDimensions;
      let response;
      try {
        response = await request(texts);
      } catch (error) {
        const APIError = loadedOpenAi()?.APIError;
        if (!(sent && APIError && error instanceof APIError && (error.status === 400 || error.status === 422)))
          throw error;
        sendDimensions = false;
        response = await request(texts);
      }
      const data = [...response.data].sort((a, b) => a.index - b.index);
      if (data.length !== texts.length)
        throw new Error(`embedding endpoint returned ${data.length} vectors for ${texts.length} inputs`);
      return data.map((d) => fitVector(d.embedding, config.dimensions));
    },
  };
}
