// Context for the next model call: short-term turns, mid- and long-term memories, markdown.
import type { Context as ContextShape } from '../server/core/context.ts';
import { contextWithRuntime } from '../server/services/embed.ts';
import { builder } from './builder.ts';
import { readSpace, spaceArgs } from './spaces.ts';
import { MemoryRef, TurnRef } from './refs.ts';

const ContextRef = builder.objectRef<ContextShape>('Context').implement({
  description: 'What to give the model before its next turn in a session.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session it was built for.' }),
    shortTerm: t.field({
      type: [TurnRef],
      description: 'The short-term window: the last turns of the session (config short_term.size), oldest first.',
      resolve: (c) => c.shortTerm,
    }),
    midTerm: t.field({ type: [MemoryRef], description: 'The top `k` active mid-term memories by score.', resolve: (c) => c.midTerm }),
    longTerm: t.field({ type: [MemoryRef], description: 'The top `k` active long-term memories by score.', resolve: (c) => c.longTerm }),
    relevant: t.field({
      type: [MemoryRef],
      description:
        'Facts from earlier sessions (this one excluded) that match `query`, or the latest user turn without it, best first ' +
        '(hybrid search; config context.relevant_k of them).',
      resolve: (c) => c.relevant,
    }),
    reflection: t.field({
      type: MemoryRef,
      nullable: true,
      description: 'The latest weekly reflection, if there is one.',
      resolve: (c) => c.reflection,
    }),
    markdown: t.exposeString('markdown', {
      description: 'The memories as a markdown block, ready to prepend to a system prompt (within `maxTokens` when given).',
    }),
  }),
});

builder.queryFields((t) => ({
  context: t.field({
    type: ContextRef,
    description: 'Builds the context for one of the user\'s sessions from that user\'s memory only. Retrieved memories count as accessed (their forgetting curve restarts).',
    args: {
      ...spaceArgs(t),
      sessionId: t.arg.string({ required: true, description: 'The session.' }),
      k: t.arg.int({ description: 'How many memories per layer (config context.k when omitted; 1 to 200).' }),
      query: t.arg.string({
        description: 'What the next turn is about, to find relevant facts from earlier sessions (by default the latest user turn).',
      }),
      maxTokens: t.arg.int({
        description: 'Token budget for `markdown` (about 4 characters a token; 1 to 1 000 000): lower-priority lines are left out.',
      }),
    },
    resolve: (_root, { sessionId, k, query, maxTokens, ...args }, context) =>
      contextWithRuntime(context.runtime, readSpace(context, args), { sessionId, k, query, maxTokens }),
  }),
}));
