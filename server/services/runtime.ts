// The running service's parts, shared by the GraphQL API, REST routes, CLI and job handlers:
// the store plus the optional network providers built from its config.
import type { Store } from '../core/kernel/store.ts';
import { createLlm, type Llm } from '../llm/client.ts';
import { createEmbedder, type Embedder } from '../llm/embeddings.ts';
import { logger } from '../logger.ts';
import type { ReadPool } from './read-pool.ts';
import { initOrReplaceVectors, startSemantic, type SemanticStatus } from './semantic.ts';

export type Runtime = {
  store: Store;
  llm: Llm | null;
  /** The embedding endpoint's, or else the local word vectors' once they are on (semantic.ts). */
  embedder?: Embedder | null;
  /** The local word vectors in this process: on, converting or off, and why. */
  semantic?: SemanticStatus;
  /** Read workers answering search and context (a server on a SQLite file; read-pool.ts). */
  reads?: ReadPool | null;
};

export async function createRuntime(store: Store, env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const embedder = createEmbedder(store.config.embedding, env);
  if (embedder) {
    // Vectors go on only if the stored ones (if any) have this model's size: see initVectors.
    const state = await initOrReplaceVectors(store, { dimensions: embedder.dimensions, model: embedder.model });
    if (!state.ready) logger.warn({ reason: state.reason }, 'vector search is off');
  }
  const runtime: Runtime = { store, llm: createLlm(store.config.llm, env), embedder };
  await startSemantic(runtime);
  return runtime;
}
