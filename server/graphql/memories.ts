// Memory: the type, its provenance (sources, entities, relations, decisions) and the read queries.
import { z } from 'zod';
import type { SourceRow } from '../core/reads/batch-reads.ts';
import type { DecisionRow } from '../core/memory/decisions.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import { builder } from './builder.ts';
import { readSpace, SPACE_RULE, spaceArgs } from './spaces.ts';
import { MemoryAction, MemoryKind, MemoryLayer, MemorySort, MemoryStatus, SaveAction, SourceReason } from './enums.ts';
import { countedConnection, MAX_PAGE, offsetPage } from './pagination.ts';
import { EntityRef, MemoryRef, relationLoader, SessionRef, TurnRef } from './refs.ts';
import {
  decisionsByMemory,
  isProtected,
  listMemories,
  memoryIdSchema,
  memoryIn,
  sourcesByMemory,
} from '../services/memories.ts';
import { entitiesForMemories } from '../services/entities.ts';
import { sessionKey } from '../services/turns.ts';

const DECISIONS_SHOWN = 20;

type FactShape = { subject: string; slot: string; value: string | null; polarity: number | null };

export const Fact = builder.objectRef<FactShape>('Fact').implement({
  description: 'The structured form of an extracted fact, used to detect conflicts (same subject and slot, new value).',
  fields: (t) => ({
    subject: t.exposeString('subject', { description: 'Who or what the fact is about (e.g. `user`).' }),
    slot: t.exposeString('slot', { description: 'The attribute (e.g. `name`, `likes`).' }),
    value: t.exposeString('value', { nullable: true, description: 'The value of the attribute, when it has one.' }),
    polarity: t.exposeInt('polarity', {
      nullable: true,
      description: '1 when the fact holds, -1 when it is negated ("I no longer like X").',
    }),
  }),
});

export const MemorySource = builder.objectRef<SourceRow>('MemorySource').implement({
  description: 'Provenance: a turn a memory came from, and why they are linked.',
  fields: (t) => ({
    turn: t.field({ type: TurnRef, description: 'The source turn.', resolve: (s) => s.turnId }),
    reason: t.expose('reason', { type: SourceReason, description: 'Why the memory is linked to this turn.' }),
    rule: t.exposeString('rule', {
      nullable: true,
      description: 'The extraction rule (or path) that produced the memory, when known.',
    }),
    at: t.expose('at', { type: 'DateTime', description: 'When the link was made.' }),
  }),
});

export const MemoryDecision = builder.objectRef<DecisionRow>('MemoryDecision').implement({
  description: "One entry of a memory's decision log (what happened to it, when and why).",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Position in the log (increasing).' }),
    memoryId: t.exposeInt('memoryId', { description: 'The memory the decision is about (kept after a hard delete).' }),
    action: t.field({
      type: MemoryAction,
      description: 'What was decided.',
      resolve: (d) => d.action as typeof MemoryAction.$inferType,
    }),
    detail: t.expose('detail', {
      type: 'JSON',
      description: 'Why and with what numbers (e.g. `{ "reason": "low_score", "score": 0.3 }`).',
    }),
    at: t.expose('at', { type: 'DateTime', description: 'When it was decided.' }),
  }),
});

export type SavedShape = {
  action: 'created' | 'merged' | 'superseded' | 'archived' | 'unchanged';
  memory: MemoryRow;
  rule?: string | null;
};

export const SavedMemory = builder.objectRef<SavedShape>('SavedMemory').implement({
  description: 'A memory that was saved (created, merged into a duplicate, superseding an older one) or archived.',
  fields: (t) => ({
    action: t.expose('action', { type: SaveAction, description: 'What saving did.' }),
    memory: t.field({
      type: MemoryRef,
      description: 'The memory as saved (or as archived).',
      resolve: (s) => s.memory,
    }),
    rule: t.string({
      nullable: true,
      description: 'The extraction rule (or `llm`) that produced it; null for an explicit `remember`.',
      resolve: (s) => s.rule ?? null,
    }),
  }),
});

const relatedIds = async (
  memory: MemoryRow,
  context: Parameters<typeof relationLoader>[0],
  kind: string,
  side: 'from' | 'to',
) =>
  (await relationLoader(context).load(memory.id))
    .filter((r) => r.kind === kind && (side === 'from' ? r.fromId === memory.id : r.toId === memory.id))
    .map((r) => (side === 'from' ? r.toId : r.fromId));

MemoryRef.implement({
  description:
    'A memory: a fact or a reflection in the mid- or long-term layer, with its salience (`score`, for ranking and GC) ' +
    'and its trust (`confidence`, decayed by the forgetting curve).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Stable integer id.' }),
    userId: t.exposeString('userId', { description: 'The user whose memory it is.' }),
    agentId: t.exposeString('agentId', {
      nullable: true,
      description: 'The agent whose own memory it is; null when shared by every agent of the user.',
    }),
    kind: t.expose('kind', {
      type: MemoryKind,
      description:
        'Fact, reflection, or standing memory: an instruction, a preference, a profile fact (see MemoryKind).',
    }),
    pinned: t.exposeBoolean('pinned', {
      description:
        'Always in the context block (its standing sections), exempt from GC and decay: set by `pinMemory`, cleared by `unpinMemory`.',
    }),
    layer: t.expose('layer', { type: MemoryLayer, description: 'Mid-term or long-term.' }),
    status: t.expose('status', {
      type: MemoryStatus,
      description: 'Active, or archived (hidden from context and search).',
    }),
    content: t.exposeString('content', { description: 'The memory, as a sentence.' }),
    tags: t.exposeStringList('tags', { description: 'Free tags (`pii` marks personal data).' }),
    importance: t.exposeFloat('importance', { description: 'Importance from 0 to 1; boosts the score.' }),
    hits: t.exposeInt('hits', { description: 'How many times it was seen again (re-extracted or merged).' }),
    accessCount: t.exposeInt('accessCount', { description: 'How many times it was retrieved for context or search.' }),
    score: t.exposeFloat('score', {
      description:
        'Salience as last stored: w_freq·ln(1+hits) + w_recency·exp(−λ·age_days) + w_importance·importance. `why` recomputes it now.',
    }),
    confidence: t.exposeFloat('confidence', {
      description: 'Trust from 0 to 1, decayed nightly; archived below the threshold.',
    }),
    decayRate: t.exposeFloat('decayRate', { description: 'Daily decay rate of the confidence; 0 means protected.' }),
    protected: t.boolean({
      description:
        'True when it never decays and GC never cleans it up (confirmed facts, reflections, instructions, preferences, profile facts, pinned memories).',
      resolve: (m) => isProtected(m),
    }),
    fact: t.field({
      type: Fact,
      nullable: true,
      description: 'The structured fact (subject, slot, value), when extraction recognised one.',
      resolve: (m) =>
        m.subject && m.slot ? { subject: m.subject, slot: m.slot, value: m.value, polarity: m.polarity } : null,
    }),
    session: t.field({
      type: SessionRef,
      nullable: true,
      description: 'The session it was learnt in, when it came from one.',
      resolve: (m) => (m.sessionId === null ? null : sessionKey(m.userId, m.sessionId)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was saved.' }),
    eventAt: t.expose('eventAt', {
      type: 'DateTime',
      description: 'When the thing it describes happened (defaults to when it was saved).',
    }),
    lastSeenAt: t.expose('lastSeenAt', {
      type: 'DateTime',
      description: 'When it was last seen (saved or reinforced).',
    }),
    lastAccessedAt: t.expose('lastAccessedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last retrieved for context or search; null if never.',
    }),
    validUntil: t.expose('validUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was archived; null while active.',
    }),
  }),
});

// What a memory links to (its turns, entities, related memories, decisions), each read in batches.
builder.objectFields(MemoryRef, (t) => ({
  sources: t.loadableList({
    type: MemorySource,
    description: 'The turns it came from, oldest first.',
    load: async (ids: number[], context) => {
      const rows = await sourcesByMemory(context.store, ids);
      return ids.map((id) => rows.get(id) ?? []);
    },
    resolve: (m) => m.id,
  }),
  entities: t.loadableList({
    type: EntityRef,
    description: 'The entities (people, places, things) it mentions, most mentioned first.',
    load: async (ids: number[], context) => {
      const rows = await entitiesForMemories(context.store, ids);
      return ids.map((id) => rows.get(id) ?? []);
    },
    resolve: (m) => m.id,
  }),
  supersedes: t.field({
    type: [MemoryRef],
    description: 'Older memories this one replaced (a conflict or a correction); they are archived.',
    resolve: (m, _args, context) => relatedIds(m, context, 'supersedes', 'from'),
  }),
  supersededBy: t.field({
    type: [MemoryRef],
    description: 'Newer memories that replaced this one.',
    resolve: (m, _args, context) => relatedIds(m, context, 'supersedes', 'to'),
  }),
  derivedFrom: t.field({
    type: [MemoryRef],
    description: 'Memories this one was derived from (a reflection lists its facts).',
    resolve: (m, _args, context) => relatedIds(m, context, 'derived_from', 'from'),
  }),
  decisions: t.loadableList({
    type: MemoryDecision,
    description: `Its latest decisions (up to ${DECISIONS_SHOWN}), newest first.`,
    load: async (ids: number[], context) => {
      const rows = await decisionsByMemory(context.store, ids);
      return ids.map((id) => (rows.get(id) ?? []).slice(0, DECISIONS_SHOWN));
    },
    resolve: (m) => m.id,
  }),
}));

export const MemoryConnection = countedConnection({
  type: MemoryRef,
  name: 'MemoryConnection',
  description: 'A page of memories.',
  total: 'How many memories match the filters, across all pages.',
  edge: 'A memory in a page, with its cursor.',
});

builder.queryFields((t) => ({
  memory: t.field({
    type: MemoryRef,
    nullable: true,
    description:
      'One memory of the space by id, whatever its status; null when there is none there (see `explain` for a deleted one).',
    args: {
      id: t.arg.int({ required: true, description: 'The memory id.', validate: memoryIdSchema }),
      ...spaceArgs(t),
    },
    resolve: async (_root, args, context) => (await memoryIn(context.store, readSpace(context, args), args.id)) ?? null,
  }),
  memories: t.field({
    type: MemoryConnection,
    description: `The space's memories, filtered and sorted, a page at a time. Only active memories unless \`status\` says otherwise. ${SPACE_RULE}`,
    args: {
      layer: t.arg({ type: MemoryLayer, description: 'Only this layer.' }),
      kind: t.arg({ type: MemoryKind, description: 'Only this kind.' }),
      status: t.arg({ type: MemoryStatus, description: 'Only this status (default ACTIVE).' }),
      superseded: t.arg.boolean({
        description:
          'true: only memories a newer one replaced (a conflict or a correction; they are archived, so pass `status: ARCHIVED`); false: only those no memory replaced.',
      }),
      tag: t.arg.string({ description: 'Only memories with this tag.' }),
      q: t.arg.string({
        description:
          'Full-text filter: every word must match (FTS5, or LIKE where FTS5 is missing). Operators are plain words.',
      }),
      sort: t.arg({ type: MemorySort, required: true, defaultValue: 'score', description: 'Order of the list.' }),
      first: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: z.number().int().min(0).max(MAX_PAGE),
      }),
      after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
      ...spaceArgs(t),
    },
    resolve: (_root, args, context) =>
      offsetPage(args, ({ limit, offset }) =>
        listMemories(context.store, readSpace(context, args), {
          layer: args.layer,
          kind: args.kind,
          status: args.status,
          superseded: args.superseded,
          tag: args.tag,
          q: args.q,
          sort: args.sort,
          limit,
          offset,
        }),
      ),
  }),
}));
