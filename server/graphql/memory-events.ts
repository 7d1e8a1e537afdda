// memoryEvents: every decision on a memory, pushed as it commits.
import type { MemoryRow } from '../core/memory/memories.ts';
import { filter, map, pipe, stream } from './streams.ts';
import { builder, type MemoryChange } from './builder.ts';
import { readSpace, SPACE_RULE, spaceArgs } from './spaces.ts';
import { MemoryAction } from './enums.ts';
import { MemoryRef, startEventScope } from './refs.ts';
import { memoryIn } from '../services/memories.ts';
import { visibleIn } from '../services/tokens.ts';

type MemoryEventShape = { change: MemoryChange; memory: MemoryRow | null };

const MemoryEvent = builder.objectRef<MemoryEventShape>('MemoryEvent').implement({
  description: 'A decision on a memory that just committed (the same entry as in its decision log).',
  fields: (t) => ({
    action: t.field({
      type: MemoryAction,
      description: 'What happened.',
      resolve: (e) => e.change.action as typeof MemoryAction.$inferType,
    }),
    memoryId: t.int({ description: 'The memory it happened to.', resolve: (e) => e.change.memoryId }),
    at: t.field({ type: 'DateTime', description: 'When it happened.', resolve: (e) => e.change.at }),
    detail: t.field({
      type: 'JSON',
      description: 'Why and with what numbers, as in the decision log.',
      resolve: (e) => e.change.detail,
    }),
    memory: t.field({
      type: MemoryRef,
      nullable: true,
      description:
        'The memory as it is when the event is delivered; for DELETED, as it was just before deletion. ' +
        'Null when it was deleted in the meantime.',
      resolve: (e) => e.memory,
    }),
  }),
});

builder.subscriptionFields((t) => ({
  memoryEvents: t.field({
    type: MemoryEvent,
    description: `Every decision on any memory of the space from now on (created, merged, promoted, archived, superseded, deleted...). ${SPACE_RULE}`,
    args: {
      actions: t.arg({ type: [MemoryAction], description: 'Only these actions (all when omitted).' }),
      ...spaceArgs(t),
    },
    // Operators, not an async generator: a closed subscription (a closed browser tab) lets go at once.
    subscribe: (_root, { actions, ...args }, context) =>
      stream(() => {
        const space = readSpace(context, args);
        const wanted = actions ? new Set<string>(actions) : null;
        return pipe(
          context.changes.subscribe('memory'),
          filter((change: MemoryChange) => visibleIn(space, change) && (!wanted || wanted.has(change.action))),
          map(
            async (change: MemoryChange): Promise<MemoryEventShape> => ({
              change,
              memory: change.snapshot ?? (await memoryIn(context.store, space, change.memoryId)) ?? null,
            }),
          ),
        );
      }),
    resolve: (event: MemoryEventShape, _args, context) => {
      startEventScope(context);
      return event;
    },
  }),
}));
