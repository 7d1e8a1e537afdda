// Session consolidation: turning a finished session's turns into facts, on demand and
// as events (STARTED, COMPLETED with the report, FAILED with the reason).
import type { ConsolidationReport as ConsolidationReportShape } from '../core/extraction/consolidation.ts';
import { consolidateSession } from '../services/consolidate.ts';
import { filter, pipe, stream } from './streams.ts';
import { builder, type ConsolidationChange } from './builder.ts';
import { readSpace, spaceArgs, writeSpace } from './spaces.ts';
import { SessionRef, startEventScope } from './refs.ts';
import { sessionKey } from '../services/turns.ts';

const ConsolidationStatus = builder.enumType('ConsolidationStatus', {
  description: 'What a consolidation run did with its session.',
  values: {
    COMPLETED: {
      value: 'completed',
      description: 'The session was read and its facts saved; it is now marked consolidated.',
    },
    SKIPPED: { value: 'skipped', description: 'Nothing to do: the session was already consolidated (see `detail`).' },
  } as const,
});

export const ConsolidationReport = builder.objectRef<ConsolidationReportShape>('ConsolidationReport').implement({
  description:
    'What consolidating one session did: the turns read (in pages of 30) and the facts saved, with two-level dedupe ' +
    'and conflict resolution. Consolidation is idempotent: facts already known from a turn count as unchanged.',
  fields: (t) => ({
    userId: t.exposeString('userId', { description: 'The user whose session it is.' }),
    sessionId: t.exposeString('sessionId', { description: 'The consolidated session.' }),
    session: t.field({
      type: SessionRef,
      nullable: true,
      description: 'The session as it is now; null if it was deleted since.',
      resolve: (r) => sessionKey(r.userId, r.sessionId),
    }),
    status: t.expose('status', { type: ConsolidationStatus, description: 'Completed, or skipped.' }),
    detail: t.exposeString('detail', {
      description:
        'Why it was skipped, or which extractor ran: `heuristic`, `llm`, or `llm+heuristic` (a failing LLM page fell back).',
    }),
    turns: t.exposeInt('turns', { description: 'Turns read.' }),
    pages: t.exposeInt('pages', { description: 'Pages of turns read.' }),
    created: t.exposeInt('created', { description: 'New facts saved.' }),
    merged: t.exposeInt('merged', {
      description: 'Facts that duplicated an active memory, which was reinforced instead.',
    }),
    superseded: t.exposeInt('superseded', {
      description: 'Older facts archived because the session contradicted them.',
    }),
    unchanged: t.exposeInt('unchanged', {
      description: 'Facts already known from the same turn (a re-run): nothing changed.',
    }),
  }),
});

const ConsolidationEventStatus = builder.enumType('ConsolidationEventStatus', {
  description: 'The stage of a consolidation run.',
  values: {
    STARTED: { value: 'STARTED', description: 'It started reading the session.' },
    COMPLETED: { value: 'COMPLETED', description: 'It finished; `report` says what it did.' },
    FAILED: {
      value: 'FAILED',
      description: 'It stopped on an error (`reason`); the session stays unconsolidated and is retried later.',
    },
  } as const,
});

const ConsolidationEvent = builder.objectRef<ConsolidationChange>('ConsolidationEvent').implement({
  description: 'A consolidation run of one session started, completed or failed.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session being consolidated.' }),
    status: t.expose('status', { type: ConsolidationEventStatus, description: 'Started, completed or failed.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When it happened.' }),
    report: t.field({
      type: ConsolidationReport,
      nullable: true,
      description: 'For COMPLETED: what the run did (facts created, merged, superseded...). Null otherwise.',
      resolve: (e) => (e.report as ConsolidationReportShape | undefined) ?? null,
    }),
    reason: t.string({
      nullable: true,
      description: 'For FAILED: why. Null otherwise.',
      resolve: (e) => e.reason ?? null,
    }),
  }),
});

builder.mutationFields((t) => ({
  consolidateSession: t.field({
    type: ConsolidationReport,
    description:
      'Consolidates a session now: reads its turns in pages of 30 and saves their facts (the LLM when configured, ' +
      'heuristics otherwise or when it fails). SKIPPED when already consolidated (a new turn reopens a session). ' +
      'NOT_FOUND for an unknown session. Progress is published to `consolidationEvents`.',
    args: { sessionId: t.arg.string({ required: true, description: 'The session to consolidate.' }), ...spaceArgs(t) },
    resolve: (_root, { sessionId, ...args }, context) =>
      consolidateSession(context.runtime, writeSpace(context, args), sessionId),
  }),
}));

builder.subscriptionFields((t) => ({
  consolidationEvents: t.field({
    type: ConsolidationEvent,
    description:
      'Consolidation runs of the user from now on (on demand, queued when a new session starts, or nightly), in one session or ' +
      '(without `sessionId`) in all of them.',
    args: { sessionId: t.arg.string({ description: 'Only runs of this session.' }), ...spaceArgs(t) },
    // Operators, not an async generator, so a closed subscription lets go of its listener at once.
    subscribe: (_root, { sessionId, ...args }, context) =>
      stream(() => {
        const space = readSpace(context, args);
        return pipe(
          context.changes.subscribe('consolidation'),
          filter(
            (event: ConsolidationChange) =>
              event.userId === space.userId && (!sessionId || event.sessionId === sessionId),
          ),
        );
      }),
    resolve: (event: ConsolidationChange, _args, context) => {
      startEventScope(context);
      return event;
    },
  }),
}));
