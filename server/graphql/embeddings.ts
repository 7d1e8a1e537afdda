// Re-embedding: backfill vectors after configuring an embedding model, or rebuild them after changing it.
import { reembed, type ReembedReport } from '../services/embed.ts';
import { builder } from './builder.ts';
import { requireAdmin } from './spaces.ts';

const Reembed = builder.objectRef<ReembedReport>('ReembedReport').implement({
  description: 'What a re-embedding pass stored.',
  fields: (t) => ({
    turns: t.exposeInt('turns', { description: 'Turns embedded by this pass.' }),
    memories: t.exposeInt('memories', { description: 'Active memories embedded by this pass.' }),
    storedTurns: t.exposeInt('storedTurns', {
      description: 'Turns that have a vector now (this pass and earlier ones).',
    }),
    storedMemories: t.exposeInt('storedMemories', {
      description: 'Memories that have a vector now (this pass and earlier ones).',
    }),
    dimensions: t.exposeInt('dimensions', { description: 'Vector size now locked in the database.' }),
    model: t.exposeString('model', { description: 'Embedding model now locked in the database.' }),
  }),
});

builder.mutationFields((t) => ({
  reembed: t.field({
    type: Reembed,
    description:
      'Embeds every turn and active memory that has no vector yet. `reset` drops all vectors and locks the configured model and size (after changing them). FAILED_PRECONDITION without an embedding model.',
    args: {
      reset: t.arg.boolean({
        defaultValue: false,
        description: 'Drop every vector first and lock the configured model and dimensions.',
      }),
      all: t.arg.boolean({ defaultValue: false, description: 'Embed rows that already have a vector too.' }),
    },
    resolve: (_root, args, context) => {
      requireAdmin(context);
      return reembed(context.runtime, { reset: args.reset ?? false, all: args.all ?? false });
    },
  }),
}));
