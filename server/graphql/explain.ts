// Explain (REST `GET /memories/{id}/why`): why a memory is where it is, from its numbers and its decision log.
import type { Explanation } from '../core/memory/explain.ts';
import type { ScoreTerms as ScoreTermsShape } from '../core/memory/scoring.ts';
import { builder } from './builder.ts';
import { readSpace, spaceArgs } from './spaces.ts';
import { ExplanationStatus } from './enums.ts';
import { MemoryDecision, MemorySource } from './memories.ts';
import { MemoryRef } from './refs.ts';
import { explain, memoryIdSchema, sourcesByMemory } from '../services/memories.ts';

const ScoreTerms = builder.objectRef<ScoreTermsShape>('ScoreTerms').implement({
  description: 'The score decomposed into its weighted terms (they add up to the score).',
  fields: (t) => ({
    frequency: t.exposeFloat('frequency', { description: 'w_freq · ln(1 + hits).' }),
    recency: t.exposeFloat('recency', { description: 'w_recency · exp(−λ · age_days).' }),
    importance: t.exposeFloat('importance', { description: 'w_importance · importance.' }),
  }),
});

const ExplanationRef = builder.objectRef<Explanation>('Explanation').implement({
  description:
    'Why a memory is where it is: its score now and its terms, the rules it matches (promotion, cleanup, protection), ' +
    'its sources, its relations and its latest decisions. Works for a hard-deleted memory too (status DELETED).',
  fields: (t) => ({
    memoryId: t.exposeInt('memoryId', { description: 'The explained memory id.' }),
    memory: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The memory; null once it was hard-deleted.',
      resolve: (e) => e.memory,
    }),
    status: t.expose('status', { type: ExplanationStatus, description: 'Active, archived or deleted.' }),
    score: t.exposeFloat('score', { description: 'The score computed now (0 when deleted).' }),
    scoreTerms: t.field({ type: ScoreTerms, description: 'The terms of the score.', resolve: (e) => e.scoreTerms }),
    hits: t.exposeInt('hits', { description: 'How many times it was seen again.' }),
    ageDays: t.exposeFloat('ageDays', { description: 'Days since it was created.' }),
    daysSinceSeen: t.exposeFloat('daysSinceSeen', {
      description: 'Days since it was last seen (saved or reinforced).',
    }),
    daysSinceAccess: t.exposeFloat('daysSinceAccess', {
      nullable: true,
      description: 'Days since it was last retrieved; null if never.',
    }),
    confidence: t.exposeFloat('confidence', { description: 'Trust from 0 to 1.' }),
    decayRate: t.exposeFloat('decayRate', { description: 'Daily decay rate of the confidence; 0 means protected.' }),
    accessCount: t.exposeInt('accessCount', { description: 'How many times it was retrieved.' }),
    protected: t.exposeBoolean('protected', { description: 'True when it never decays and GC never cleans it up.' }),
    rules: t.exposeStringList('rules', {
      description: 'The rules it matches now, in words (e.g. `promote: hits 3 >= 3 and seen within 7 days`).',
    }),
    sources: t.field({
      type: [MemorySource],
      description: 'The turns it came from, oldest first.',
      resolve: async (e, _args, { store }) =>
        e.memory ? ((await sourcesByMemory(store, [e.memoryId])).get(e.memoryId) ?? []) : [],
    }),
    supersedes: t.field({
      type: [MemoryRef],
      description: 'Older memories it replaced.',
      resolve: (e) => e.supersedes,
    }),
    supersededBy: t.field({
      type: [MemoryRef],
      description: 'Newer memories that replaced it.',
      resolve: (e) => e.supersededBy,
    }),
    derivedFrom: t.field({
      type: [MemoryRef],
      description: 'Memories it was derived from.',
      resolve: (e) => e.derivedFrom,
    }),
    decisions: t.field({
      type: [MemoryDecision],
      description: 'Its latest decisions (up to 20), newest first.',
      resolve: (e) => e.decisions,
    }),
  }),
});

builder.queryFields((t) => ({
  explain: t.field({
    type: ExplanationRef,
    description: 'Explains a memory, even a hard-deleted one. NOT_FOUND when the id never existed.',
    args: {
      id: t.arg.int({ required: true, description: 'The memory id.', validate: memoryIdSchema }),
      ...spaceArgs(t),
    },
    resolve: (_root, args, context) => explain(context.store, readSpace(context, args), args.id),
  }),
}));

builder.objectField(MemoryRef, 'why', (t) =>
  t.field({
    type: ExplanationRef,
    description:
      'Its explanation (as `Query.explain`). Computed per memory: ask for it on a few memories, not on long lists.',
    // The memory was reachable already: it is explained in its own space.
    resolve: (m, _args, { store }) => explain(store, { userId: m.userId, agentId: m.agentId }, m.id),
  }),
);
