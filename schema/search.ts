// SearchHit: the result type of hybrid search (FTS5 + vectors + entities, fused with RRF).
// The `search` query arrives with the search feature; the type is here so that the API shape
// (which signals found a hit, at what rank) is settled and clients can be generated against it.
import type { MemoryRow } from '../server/core/memories.ts';
import type { TurnRow } from '../server/core/turns.ts';
import { builder } from './builder.ts';
import { MemoryRef, TurnRef } from './refs.ts';

export type SearchSignalShape = { signal: 'text' | 'vector' | 'entity'; rank: number };
export type SearchHitShape = { memory: MemoryRow | null; turn: TurnRow | null; score: number; signals: SearchSignalShape[] };

const SearchSignalKind = builder.enumType('SearchSignalKind', {
  description: 'A retrieval signal of hybrid search.',
  values: {
    TEXT: { value: 'text', description: 'Full-text match (FTS5 BM25, or LIKE without FTS5).' },
    VECTOR: { value: 'vector', description: 'Embedding nearest neighbours (sqlite-vec), when embeddings are configured.' },
    ENTITY: { value: 'entity', description: 'Mentions an entity named in the query.' },
  } as const,
});

const SearchSignal = builder.objectRef<SearchSignalShape>('SearchSignal').implement({
  description: 'One signal that found a hit, and the hit\'s rank in that signal\'s own list.',
  fields: (t) => ({
    signal: t.expose('signal', { type: SearchSignalKind, description: 'Which signal.' }),
    rank: t.exposeInt('rank', { description: 'Rank in that signal\'s list (1 is best).' }),
  }),
});

export const SearchHit = builder.objectRef<SearchHitShape>('SearchHit').implement({
  description: 'A search result: a memory or a turn, its fused score and the signals that found it.',
  fields: (t) => ({
    memory: t.field({ type: MemoryRef, nullable: true, description: 'The memory found (null for a turn hit).', resolve: (h) => h.memory }),
    turn: t.field({ type: TurnRef, nullable: true, description: 'The turn found (null for a memory hit).', resolve: (h) => h.turn }),
    score: t.exposeFloat('score', { description: 'Reciprocal-rank-fusion score (k = 60); higher is better.' }),
    signals: t.field({ type: [SearchSignal], description: 'The signals that found it, with ranks.', resolve: (h) => h.signals }),
  }),
});
