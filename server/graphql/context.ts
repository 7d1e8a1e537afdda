// Context for the next model call: the short-term window, and one block of facts, turns and
// reflections packed to a token budget for the query, each item with its date.
import type { Context as ContextShape, ContextItem as ContextItemShape } from '../core/context/context.ts';
import type { TimelineEntry } from '../core/context/timeline.ts';
import { MAX_TOKEN_BUDGET, MIN_TOKEN_BUDGET, TOKENIZER, assembleContext } from '../services/context.ts';
import { builder } from './builder.ts';
import { readSpace, spaceArgs } from './spaces.ts';
import { MemoryRef, TurnRef } from './refs.ts';
import { SearchKind } from './search.ts';

const ContextItemReason = builder.enumType('ContextItemReason', {
  description: 'Why an item is in the context block.',
  values: {
    QUERY: { value: 'query', description: 'Search found it for the query.' },
    RECENCY: {
      value: 'recency',
      description:
        "Recent or salient material: the whole block without a query, else filling the space the query's matches left.",
    },
    STANDING: {
      value: 'standing',
      description:
        'In a standing section (an instruction, a preference or profile fact, or a pinned memory): there whatever the query, within config context.standing_share of the budget.',
    },
  } as const,
});

const ContextItemRef = builder.objectRef<ContextItemShape>('ContextItem').implement({
  description: 'One fact, turn, reflection or standing memory in the context block.',
  fields: (t) => ({
    kind: t.expose('kind', {
      type: SearchKind,
      description:
        "Fact, reflection or turn; in the standing sections, the memory's kind (INSTRUCTION, PREFERENCE, PROFILE, or any pinned kind).",
    }),
    id: t.exposeInt('id', { description: 'The memory id (facts, reflections: what `explain` takes) or the turn id.' }),
    text: t.exposeString('text', { description: "The memory's content or the turn's text." }),
    line: t.exposeString('line', {
      description: 'The item as written in `markdown`, with its date (and, for a turn, its speaker).',
    }),
    at: t.expose('at', {
      type: 'DateTime',
      description:
        "The date it carries: when a fact was stated (its first source turn, or when it was saved), a turn's time, when a reflection was written.",
    }),
    eventAt: t.expose('eventAt', {
      type: 'DateTime',
      nullable: true,
      description: 'For a fact: when what it says happened or began.',
    }),
    supersededAt: t.expose('supersededAt', {
      type: 'DateTime',
      nullable: true,
      description:
        'For a fact a newer one replaced (shown as history, marked superseded): when the newer one took effect. Null for a current fact.',
    }),
    tokens: t.exposeInt('tokens', { description: `Tokens of \`line\` (${TOKENIZER}).` }),
    value: t.exposeFloat('value', {
      description: 'The value that won its place, relative to the other items (higher is better).',
    }),
    reason: t.expose('reason', { type: ContextItemReason, description: 'Why it is in the block.' }),
    sessionId: t.exposeString('sessionId', {
      nullable: true,
      description: 'The session it comes from, when it has one.',
    }),
    memory: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The memory (null for a turn).',
      resolve: (i) => i.memory,
    }),
    turn: t.field({
      type: TurnRef,
      nullable: true,
      description: 'The turn (null for a memory).',
      resolve: (i) => i.turn,
    }),
    sourceTurnIds: t.exposeIntList('sourceTurnIds', {
      description: 'For a memory: the turns it came from, oldest first (empty for a turn).',
    }),
  }),
});

type SectionShape = ContextShape['standing']['instructions'];

const ContextSectionRef = builder.objectRef<SectionShape>('ContextSection').implement({
  description: 'A standing section of the context block, there whatever the query.',
  fields: (t) => ({
    title: t.exposeString('title', {
      description: 'Its heading in `markdown` ("Standing instructions", "About the user").',
    }),
    items: t.field({
      type: [ContextItemRef],
      description: 'What it holds, in order: pinned first, then what the query matches, then the newest and most used.',
      resolve: (s) => s.items,
    }),
    leftOut: t.exposeInt('leftOut', {
      description:
        'How many more there are that did not fit its share of the budget (the block says so in a last line).',
    }),
  }),
});

const ContextStandingRef = builder.objectRef<ContextShape['standing']>('ContextStanding').implement({
  description:
    "The sections that open every context block: the user's standing instructions, then what is known about the user (preferences, profile facts) " +
    'with any pinned memory, within config context.standing_share of the budget.',
  fields: (t) => ({
    instructions: t.field({
      type: ContextSectionRef,
      description: 'Standing instructions (memories of kind INSTRUCTION, and pinned ones).',
      resolve: (s) => s.instructions,
    }),
    about: t.field({
      type: ContextSectionRef,
      description: 'About the user: preferences, profile facts and other pinned memories.',
      resolve: (s) => s.about,
    }),
    tokens: t.exposeInt('tokens', { description: 'Tokens the two sections take in `markdown`.' }),
  }),
});

const TimelineEntryRef = builder.objectRef<TimelineEntry>('TimelineEntry').implement({
  description:
    "One entry of the dated timeline a question about order, progress or a summary gets: an exchange of a session's digest.",
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session it comes from.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When the request was said.' }),
    text: t.exposeString('text', {
      description:
        "The request (led by its speaker's name when the turn has one), then `→` and the start of the answer.",
    }),
    line: t.exposeString('line', { description: 'The entry as written in `markdown` (under a heading of its day).' }),
    turnIds: t.exposeIntList('turnIds', {
      description: 'The turns whose words it holds: the request, then the answer.',
    }),
    tokens: t.exposeInt('tokens', { description: `Tokens of \`line\` (${TOKENIZER}).` }),
    value: t.exposeFloat('value', {
      description: 'The value for the query that won its place (relative; higher is better).',
    }),
  }),
});

const ContextRef = builder.objectRef<ContextShape>('Context').implement({
  description:
    'What to give the model before its next turn in a session: the short-term window, and `markdown`, one block of facts, turns ' +
    'and reflections ranked together for the query and packed into the token budget.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session it was built for.' }),
    query: t.exposeString('query', {
      nullable: true,
      description:
        "The text the block was ranked for: `query`, or the session's latest user turn; null when the block is recency-based.",
    }),
    shortTerm: t.field({
      type: [TurnRef],
      description:
        'The short-term window: the last turns of the session (config short_term.size), oldest first. Not part of `markdown` or its budget.',
      resolve: (c) => c.shortTerm,
    }),
    markdown: t.exposeString('markdown', {
      description:
        'The block to prepend to a system prompt: first, whatever the query, "Standing instructions" and "About the user" (see `standing`); then ' +
        'facts (each with the date it was stated; a superseded one says when it was replaced and by what), conversation excerpts ' +
        '(`[date] speaker: text`) and the weekly insight, each group in time order, within `tokenBudget`.',
    }),
    items: t.field({
      type: [ContextItemRef],
      description:
        "What `markdown` holds, item by item: the standing sections' items first, then the ranked ones, best value first.",
      resolve: (c) => c.items,
    }),
    standing: t.field({
      type: ContextStandingRef,
      description: 'The standing sections that open `markdown` whatever the query.',
      resolve: (c) => c.standing,
    }),
    timeline: t.field({
      type: [TimelineEntryRef],
      description:
        'For a question about order, progress or a summary ("walk me through", "in what order", "summarize", "how has X changed"): ' +
        "the dated lines of the relevant sessions' digests at the top of `markdown`, oldest first, within the budget. Empty otherwise.",
      resolve: (c) => c.timeline.entries,
    }),
    tokenBudget: t.exposeInt('tokenBudget', { description: 'The budget the block was packed to.' }),
    tokensUsed: t.exposeInt('tokensUsed', { description: `Tokens of \`markdown\`, counted whole (${TOKENIZER}).` }),
    tokenizer: t.exposeString('tokenizer', {
      description: `How tokens are counted: ${TOKENIZER}, the tokenizer of OpenAI's GPT-4o, GPT-4.1 and GPT-5 (other models' counts differ a little).`,
    }),
    midTerm: t.field({
      type: [MemoryRef],
      description: 'The mid-term facts in the block, best first.',
      deprecationReason: 'Use `items`: facts, turns and reflections are ranked in one list.',
      resolve: (c) => c.midTerm,
    }),
    longTerm: t.field({
      type: [MemoryRef],
      description: 'The long-term facts in the block, best first.',
      deprecationReason: 'Use `items`: facts, turns and reflections are ranked in one list.',
      resolve: (c) => c.longTerm,
    }),
    relevant: t.field({
      type: [MemoryRef],
      description: 'Every fact in the block (superseded ones included), best first.',
      resolve: (c) => c.relevant,
    }),
    reflection: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The latest weekly reflection, if there is one (in `markdown` only when it won its place).',
      resolve: (c) => c.reflection,
    }),
  }),
});

const budgetRange = `${MIN_TOKEN_BUDGET} to ${MAX_TOKEN_BUDGET.toLocaleString('en-US').replace(',', ' ')}`;

builder.queryFields((t) => ({
  context: t.field({
    type: ContextRef,
    description:
      "Builds the context for one of the user's sessions from that user's memory only. Facts, turns and reflections are ranked " +
      'together for the query (hybrid search) and fill the token budget best value per token first; a fact and the turn it came ' +
      'from both go in only when there is room for both; turns of the short-term window are left out of the block. Without a ' +
      "query the session's latest user turn is used; with an empty one, or no user turn, the block holds the most recent and " +
      'salient material. Facts in the block count as accessed (their forgetting curve restarts).',
    args: {
      ...spaceArgs(t),
      sessionId: t.arg.string({ required: true, description: 'The session.' }),
      query: t.arg.string({
        description:
          "What the next turn is about (up to 20 000 characters). Omitted: the session's latest user turn. Empty: a recency-based block.",
      }),
      tokenBudget: t.arg.int({
        description: `Size of \`markdown\` in tokens, counted with ${TOKENIZER} (${budgetRange}; config context.token_budget, 1 000 by default).`,
      }),
      maxTokens: t.arg.int({
        description: `The same as \`tokenBudget\` (${budgetRange}).`,
        deprecationReason: 'Use `tokenBudget`.',
      }),
      k: t.arg.int({
        description: 'No longer used (1 to 200): the token budget decides how much goes in.',
        deprecationReason: 'The token budget decides.',
      }),
    },
    resolve: (_root, { sessionId, k, query, tokenBudget, maxTokens, ...args }, context) =>
      assembleContext(context.runtime, readSpace(context, args), { sessionId, k, query, tokenBudget, maxTokens }),
  }),
}));
