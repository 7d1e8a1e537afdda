// Whether vectors are on for a store: set when the runtime configures an embedder (initVectors).
// Kept apart from the vector code so the hot path (and forget) can ask without importing it.
export type VectorSpec = { dimensions: number; model: string };
export type VectorState = { ready: true; spec: VectorSpec } | { ready: false; reason: string };

/** The plain tables that hold embeddings (drizzle/schema.ts), by what they embed. */
export const VECTOR_TABLES = { memories: 'memory_vectors', turns: 'turn_vectors' } as const;
/** The sqlite-vec vec0 tables of earlier releases: moved into VECTOR_TABLES when vectors go on (initVectors). */
export const LEGACY_VECTOR_TABLES = { memories: 'vec_memories', turns: 'vec_turns' } as const;
export type VectorTable = keyof typeof VECTOR_TABLES;

const states = new WeakMap<object, VectorState>();

export const vectorState = (store: object): VectorState =>
  states.get(store) ?? { ready: false, reason: 'no embedding model configured' };
export const vectorsReady = (store: object) => vectorState(store).ready;

export function setVectorState(store: object, state: VectorState): VectorState {
  states.set(store, state);
  return state;
}
