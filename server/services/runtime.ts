// The running service's parts, shared by the GraphQL API, REST routes, CLI and job handlers:
// the store plus the optional network providers built from its config.
import { initVectors } from '../core/search/vectors.ts';
import type { Store } from '../core/store.ts';
import { createLlm, type Llm } from '../llm/client.ts';
import { createEmbedder, type Embedder } from '../llm/embeddings.ts';
import { logger } from '../logger.ts';

export type Runtime = { store: Store; llm: Llm | null; embedder?: Embedder | null };

export function createRuntime(store: Store, env: NodeJS.ProcessEnv = process.env): Runtime {
  const embedder = createEmbedder(store.config.embedding, env);
  if (embedder) {
    // Vectors go on only if the stored ones (if any) have this model's size: see initVectors.
    const state = initVectors(store, { dimensions: embedder.dimensions, model: embedder.model });
    if (!state.ready) logger.warn({ reason: state.reason }, 'vector search is off');
  }
  return { store, llm: createLlm(store.config.llm, env), embedder };
}
