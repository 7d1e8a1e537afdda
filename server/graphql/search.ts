// Hybrid search (lexical BM25 + conversation structure, memories, entities, vectors, fused with
// RRF k = 60): facts, reflections and turns, each hit with the rank every signal gave it.
import type { SearchHit as SearchHitShape, SearchKind as SearchKindName, Signal } from '../core/search/index.ts';
import { SEARCH_KINDS, SIGNALS, searchMemory } from '../services/search.ts';
import { builder } from './builder.ts';
import { readSpace, spaceArgs } from './spaces.ts';
import { MemoryStatus } from './enums.ts';
import { MemoryRef, TurnRef } from './refs.ts';

export type SearchSignalShape = { signal: Signal; rank: number };

const upper = <K extends string>(values: readonly K[], describe: Record<K, string>) =>
  Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v, description: describe[v] }])) as {
    [V in K as Uppercase<V>]: { value: V; description: string };
  };

export const SearchKind = builder.enumType('SearchKind', {
  description: 'What a search hit is.',
  values: upper(SEARCH_KINDS, {
    fact: 'A fact (a memory of kind FACT).',
    reflection: 'A reflection (a memory of kind REFLECTION).',
    instruction: 'A standing instruction (a memory of kind INSTRUCTION).',
    preference: 'A preference (a memory of kind PREFERENCE).',
    profile: 'A profile fact (a memory of kind PROFILE).',
    turn: 'A turn of a conversation (the episodic history).',
  } satisfies Record<SearchKindName, string>),
});

const SearchSignalKind = builder.enumType('SearchSignalKind', {
  description: 'A retrieval signal of hybrid search; each ranks its own list, and RRF fuses the lists.',
  values: upper(SIGNALS, {
    lexical: 'Full-text match (FTS5 BM25, or LIKE without FTS5), re-ranked by conversation structure for turns.',
    vector:
      "Embedding nearest neighbours, when an embedding model is configured. Facts and reflections: the model's list, fused by rank. Turns: the model's 20 nearest, which the turn ranker scores with the cosine as one of its features (their rank shows here; the score counts it once, through the LEXICAL rank).",
    entity: 'Mentions an entity named in the query.',
    memory: 'For a turn: a fact extracted from it matched the query.',
  } satisfies Record<Signal, string>),
});

const SearchSignal = builder.objectRef<SearchSignalShape>('SearchSignal').implement({
  description: "One signal that found a hit, and the hit's rank in that signal's own list.",
  fields: (t) => ({
    signal: t.expose('signal', { type: SearchSignalKind, description: 'Which signal.' }),
    rank: t.exposeInt('rank', { description: "Rank in that signal's list (1 is best)." }),
  }),
});

export const SearchHit = builder.objectRef<SearchHitShape>('SearchHit').implement({
  description: 'A search result: a fact, a reflection or a turn, its fused score and the signals that found it.',
  fields: (t) => ({
    kind: t.expose('kind', { type: SearchKind, description: 'Fact, reflection or turn.' }),
    id: t.exposeInt('id', { description: 'The memory id (facts, reflections) or the turn id (turns).' }),
    text: t.exposeString('text', { description: "The memory's content or the turn's text." }),
    sessionId: t.exposeString('sessionId', {
      nullable: true,
      description: 'The session it comes from, when it has one.',
    }),
    at: t.expose('at', {
      type: 'DateTime',
      description: "When it happened: the turn's time, or the memory's event time.",
    }),
    memory: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The memory found (null for a turn hit).',
      resolve: (h) => h.memory,
    }),
    turn: t.field({
      type: TurnRef,
      nullable: true,
      description: 'The turn found (null for a memory hit).',
      resolve: (h) => h.turn,
    }),
    score: t.exposeFloat('score', {
      description: 'Reciprocal-rank-fusion score (k = 60) over the signals that found it; higher is better.',
    }),
    signals: t.field({
      type: [SearchSignal],
      description: 'The signals that found it, best rank first (a signal that did not find it is absent).',
      resolve: (h) =>
        SIGNALS.flatMap((signal) => (h.ranks[signal] === null ? [] : [{ signal, rank: h.ranks[signal]! }])).sort(
          (a, b) => a.rank - b.rank,
        ),
    }),
    sourceTurnIds: t.exposeIntList('sourceTurnIds', {
      description: 'For a memory: the turns it came from, oldest first (empty for a turn).',
    }),
    passage: t.string({
      nullable: true,
      description:
        'For a turn over 800 characters: the passage of its text that ranked it (a few sentences, or a code block whole), as the context quotes it. Null otherwise.',
      resolve: (h) => h.passage ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: [SearchHit],
    description:
      "Hybrid search over one user's facts, reflections and turns, best first. Any query text is safe (it is tokenised, never " +
      'used as FTS syntax); one with no searchable word finds nothing. Memories found count as accessed (their ' +
      'forgetting curve restarts). Archived memories only with `status: ARCHIVED`.',
    args: {
      query: t.arg.string({
        required: true,
        description: 'What to look for, in plain words (up to 20 000 characters).',
      }),
      kinds: t.arg({ type: [SearchKind], description: 'Only these kinds (all when omitted).' }),
      limit: t.arg.int({ description: 'How many hits (1 to 200; default 10).' }),
      excludeSessionId: t.arg.string({
        description: 'Leave out this session (e.g. the current one, to recall earlier conversations).',
      }),
      sessionIds: t.arg.stringList({ description: 'Only these sessions.' }),
      from: t.arg({
        type: 'DateTime',
        description: 'Only what happened at or after this time (turn time, memory event time).',
      }),
      to: t.arg({ type: 'DateTime', description: 'Only what happened at or before this time.' }),
      tags: t.arg.stringList({
        description: 'Only memories carrying every one of these tags (turns have no tags, so this leaves turns out).',
      }),
      status: t.arg({ type: MemoryStatus, description: 'Memory status (default ACTIVE).' }),
      speakers: t.arg.stringList({ description: 'Only turns by these speakers (the turn `name`, case-insensitive).' }),
      ...spaceArgs(t),
    },
    resolve: async (_root, args, context) => {
      const { hits } = await searchMemory(context.runtime, readSpace(context, args), {
        query: args.query,
        kinds: args.kinds ?? undefined,
        limit: args.limit ?? undefined,
        excludeSessionId: args.excludeSessionId,
        sessionIds: args.sessionIds,
        from: args.from,
        to: args.to,
        tags: args.tags,
        status: args.status ?? undefined,
        speakers: args.speakers,
      });
      return hits;
    },
  }),
}));
