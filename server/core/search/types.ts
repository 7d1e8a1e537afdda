// search() input and output. Shaped to map one-to-one onto the GraphQL SearchHit type:
// a hit is a fact, reflection or turn, with its fused score and its rank in every signal.
import { z } from 'zod';
import { MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import { SEARCH_KINDS, type SIGNALS } from '../kernel/vocabulary.ts';
import type { MemoryRow } from '../memory/memories.ts';
import type { TurnRow } from '../turns/turns.ts';
import { tagsSchema } from '../kernel/validation.ts';

export type SearchKind = (typeof SEARCH_KINDS)[number];

export type Signal = (typeof SIGNALS)[number];
export type SignalRanks = Record<Signal, number | null>;

export const MAX_QUERY_CHARS = 20_000;

const time = z.number().int().nonnegative();

export const searchSchema = z
  .object({
    /** Free text. Any string is safe: it is tokenised, never passed through as FTS syntax. */
    query: z.string().max(MAX_QUERY_CHARS),
    kinds: z
      .array(z.enum(SEARCH_KINDS))
      .min(1)
      .default([...SEARCH_KINDS]),
    limit: z.number().int().min(1).max(200).default(10),
    /** Only these sessions. */
    sessionIds: z.array(z.string().trim().min(1)).max(1000).nullish(),
    /** Leave out this session (context injection: only earlier conversations). */
    excludeSessionId: z.string().trim().min(1).nullish(),
    /** Time range (epoch ms, inclusive) on turns.at and memories.event_at. */
    from: time.nullish(),
    to: time.nullish(),
    /** Memories carrying every one of these tags. Turns carry no tags, so tags leave turns out. */
    tags: tagsSchema.nullish(),
    /** Memory status; active by default (archived rows are hidden from search). */
    status: z.enum(MEMORY_STATUSES).default('active'),
    /** Turns by these speakers only (turns.name, case-insensitive). */
    speakers: z.array(z.string().trim().min(1)).max(100).nullish(),
  })
  .refine((v) => v.from == null || v.to == null || v.from <= v.to, {
    message: 'from must not be after to',
    path: ['from'],
  });

export type SearchInput = z.input<typeof searchSchema>;
export type SearchFilter = z.output<typeof searchSchema>;

export type SearchHit = {
  kind: SearchKind;
  /** Memory id for facts and reflections, turn id for turns. */
  id: number;
  text: string;
  sessionId: string | null;
  /** turns.at, or memories.event_at. */
  at: number;
  /** Reciprocal Rank Fusion score (k = 60) over every signal that found the hit. */
  score: number;
  ranks: SignalRanks;
  memory: MemoryRow | null;
  turn: TurnRow | null;
  /** For a memory: the turns it was extracted from (provenance), oldest first. */
  sourceTurnIds: number[];
  /** For a long turn: the passage of its text that ranked it (a few sentences, or a code block). */
  passage?: string;
};

export type SearchResult = {
  hits: SearchHit[];
  /** Which signals ran (a disabled or unavailable one is absent). */
  signals: Signal[];
};
