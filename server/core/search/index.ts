// The retrieval core: hybrid search (lexical + structure, memories, entities, vectors) fused by RRF.
export { search, DEFAULT_TUNING, type SearchOptions, type SearchTuning } from './search.ts';
export { SEARCH_KINDS, SIGNALS } from '../kernel/vocabulary.ts';
export {
  searchSchema,
  type SearchHit,
  type SearchInput,
  type SearchKind,
  type SearchResult,
  type Signal,
  type SignalRanks,
} from './types.ts';
export {
  initVectors,
  resetVectors,
  vectorState,
  vectorsReady,
  putVectors,
  countVectors,
  lockedSpec,
  type VectorSpec,
  type VectorState,
} from '../vectors/vectors.ts';
