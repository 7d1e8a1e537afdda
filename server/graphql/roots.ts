// The three root types. Their fields are declared in the domain files, beside the types they return.
import { builder } from './builder.ts';

builder.queryType({
  description:
    'Reads: memories, turns, sessions, entities, search, context for a prompt, explanations, jobs, config, health and statistics.',
});

builder.mutationType({
  description: 'Writes. Each runs in one transaction: on an error nothing changes.',
});

builder.subscriptionType({
  description: 'Committed changes, pushed over graphql-ws (same URL as HTTP, `ws://` scheme).',
});
