// Whether vectors are on for a store: set when the runtime configures an embedder (initVectors).
// Kept apart from the vec0 code so the hot path can ask without importing it.
export type VectorSpec = { dimensions: number; model: string };
export type VectorState = { ready: true; spec: VectorSpec } | { ready: false; reason: string };

const states = new WeakMap<object, VectorState>();

export const vectorState = (store: object): VectorState => states.get(store) ?? { ready: false, reason: 'no embedding model configured' };
export const vectorsReady = (store: object) => vectorState(store).ready;

export function setVectorState(store: object, state: VectorState): VectorState {
  states.set(store, state);
  return state;
}
