// Turns (the episodic layer): the type, a session's history, addTurn and turnAdded.
import { z } from 'zod';
import type { TurnRow } from '../core/turns/turns.ts';
import { ingestParsedTurn } from '../services/ingest.ts';
import { filter, map, pipe, stream } from './streams.ts';
import { builder, type TurnChange } from './builder.ts';
import { readSpace, SPACE_RULE, spaceArgs, writeSpace } from './spaces.ts';
import { Role } from './enums.ts';
import { SavedMemory, type SavedShape } from './memories.ts';
import { countedConnection, decodeTurnCursor, MAX_PAGE, turnPage, type Page } from './pagination.ts';
import { EntityRef, SessionRef, startEventScope, TurnRef } from './refs.ts';
import { addTurnSchema, sessionKey, turnCountsBySession, turnIn, turnsBefore } from '../services/turns.ts';
import { entitiesForTurns } from '../services/entities.ts';
import { visibleIn } from '../services/tokens.ts';

TurnRef.implement({
  description: 'One user or assistant message of a session. Every turn is kept as searchable history.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Stable integer id.' }),
    userId: t.exposeString('userId', { description: 'The user whose conversation it is.' }),
    agentId: t.exposeString('agentId', {
      nullable: true,
      description: 'The agent it was said to, when the app named one.',
    }),
    sessionId: t.exposeString('sessionId', { description: 'The id of its session.' }),
    session: t.field({
      type: SessionRef,
      description: 'Its session.',
      resolve: (turn) => sessionKey(turn.userId, turn.sessionId),
    }),
    role: t.expose('role', { type: Role, description: 'Who said it.' }),
    name: t.exposeString('name', {
      nullable: true,
      description: "Optional speaker name (e.g. the user's display name).",
    }),
    text: t.exposeString('text', { description: 'What was said.' }),
    at: t.expose('at', {
      type: 'DateTime',
      description: 'When it was said (may be in the past for imported history).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was stored.' }),
    entities: t.loadableList({
      type: EntityRef,
      description: 'The entities it mentions, most mentioned first.',
      load: async (ids: number[], context) => {
        const rows = await entitiesForTurns(context.store, ids);
        return ids.map((id) => rows.get(id) ?? []);
      },
      resolve: (turn) => turn.id,
    }),
  }),
});

export const TurnConnection = countedConnection({
  type: TurnRef,
  name: 'TurnConnection',
  description: 'A page of turns, oldest first. Page backward with `last` and `before`.',
  total: 'How many turns the session has, across all pages.',
  edge: 'A turn in a page, with its cursor.',
});

export type TurnPage = Page<TurnRow>;

const lastArg = z.number().int().min(0).max(MAX_PAGE);

builder.queryFields((t) => ({
  turns: t.field({
    type: TurnConnection,
    description:
      'The history of a session, oldest first: the `last` turns before `before` (the latest ones without it). ' +
      'Continue backward with `before: pageInfo.startCursor`.',
    args: {
      sessionId: t.arg.string({ required: true, description: 'The session.' }),
      last: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: lastArg,
      }),
      before: t.arg.string({ description: 'Cursor to continue before (`pageInfo.startCursor`).' }),
      ...spaceArgs(t),
    },
    resolve: async (_root, { sessionId, last, before, ...args }, context): Promise<TurnPage> => {
      const { store } = context;
      const space = readSpace(context, args);
      const position = before ? decodeTurnCursor(before) : null;
      const total = (await turnCountsBySession(store, space, [sessionId])).get(sessionId) ?? 0;
      const { rows, hasPrevious } = await turnsBefore(store, space, sessionId, last, position);
      return turnPage(rows, hasPrevious, total, position !== null);
    },
  }),
}));

const AddTurnInput = builder.inputType('AddTurnInput', {
  description: 'A turn to store. The session is registered on its first turn.',
  fields: (t) => ({
    sessionId: t.string({
      required: true,
      description: 'The conversation it belongs to (any string up to 200 characters).',
    }),
    role: t.field({ type: Role, required: true, description: 'Who said it.' }),
    name: t.string({ description: 'Optional speaker name.' }),
    text: t.string({ required: true, description: 'What was said.' }),
    autoExtract: t.boolean({
      required: true,
      defaultValue: true,
      description:
        'Extract memories from the turn (facts from a user turn; decisions and restated user facts from an assistant turn). False stores it as history only.',
    }),
    at: t.field({ type: 'DateTime', description: 'When it was said, for importing history; defaults to now.' }),
  }),
  validate: addTurnSchema,
});

type AddTurnResult = { turn: TurnRow; newSession: boolean; extracted: SavedShape[] };

const AddTurnPayload = builder.objectRef<AddTurnResult>('AddTurnPayload').implement({
  description: 'The stored turn and what was learnt from it.',
  fields: (t) => ({
    turn: t.field({ type: TurnRef, description: 'The stored turn.', resolve: (p) => p.turn }),
    newSession: t.exposeBoolean('newSession', { description: 'True when this turn started a new session.' }),
    extracted: t.field({
      type: [SavedMemory],
      description:
        'Memories saved from this turn in the same transaction (created, merged or superseding an older fact).',
      resolve: (p) => p.extracted,
    }),
  }),
});

builder.mutationFields((t) => ({
  addTurn: t.field({
    type: AddTurnPayload,
    description:
      'Stores a turn in its session and (unless `autoExtract` is false) extracts memories from a user turn ' +
      '(an assistant turn yields only decisions and user facts it restates, by heuristics), ' +
      'as config extractor.mode says: heuristic and hybrid answer without a network call (hybrid refines with the LLM ' +
      'in the background: watch `memoryEvents`); llm waits for the LLM (llm.timeout_s) and falls back to heuristics.',
    args: { input: t.arg({ type: AddTurnInput, required: true, description: 'The turn.' }), ...spaceArgs(t) },
    resolve: async (_root, { input, ...args }, context): Promise<AddTurnResult> => {
      // `input` is addTurnSchema's output (the `validate` of AddTurnInput). newSession comes from the
      // transaction that stored the turn: a check before it could race another writer.
      const { turn, newSession, extracted } = await ingestParsedTurn(context.runtime, writeSpace(context, args), input);
      return { turn, newSession, extracted };
    },
  }),
}));

builder.subscriptionFields((t) => ({
  turnAdded: t.field({
    type: TurnRef,
    description: `Each turn of the space stored from now on, in one session or (without \`sessionId\`) in all of them. ${SPACE_RULE}`,
    args: { sessionId: t.arg.string({ description: 'Only turns of this session.' }), ...spaceArgs(t) },
    // Operators, not an async generator, so a closed subscription lets go of its listener at once.
    subscribe: (_root, { sessionId, ...args }, context) =>
      stream(() => {
        const space = readSpace(context, args);
        return pipe(
          context.changes.subscribe('turn'),
          filter((event: TurnChange) => visibleIn(space, event) && (!sessionId || event.sessionId === sessionId)),
          // Read at delivery: a turn forgotten in the meantime is skipped.
          map(async (event: TurnChange) => (await turnIn(context.store, space, event.turnId)) ?? null),
          filter((turn: TurnRow | null): turn is TurnRow => turn !== null),
        );
      }),
    resolve: (turn: TurnRow, _args, context) => {
      startEventScope(context);
      return turn;
    },
  }),
}));
