// Sessions: conversations, registered on their first turn.
import { z } from 'zod';
import { recentTurnsBySession, turnCountsBySession } from '../server/core/batch-reads.ts';
import { getSession, listSessions, type SessionRow } from '../server/core/sessions.ts';
import { builder } from './builder.ts';
import { countedConnection, MAX_PAGE, offsetPage, turnPage } from './pagination.ts';
import { SessionRef } from './refs.ts';
import { TurnConnection, type TurnPage } from './turns.ts';

SessionRef.implement({
  description: 'A conversation: the turns that share a session id.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The session id chosen by the client.' }),
    firstSeenAt: t.expose('firstSeenAt', { type: 'DateTime', description: 'When its earliest turn was said.' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', description: 'When its latest turn was said.' }),
    consolidatedAt: t.expose('consolidatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last consolidated into facts; null if not yet.',
    }),
    turnCount: t.loadable({
      type: 'Int',
      description: 'How many turns it has.',
      load: async (ids: string[], context) => {
        const counts = turnCountsBySession(context.store, ids);
        return ids.map((id) => counts.get(id) ?? 0);
      },
      resolve: (session) => session.id,
    }),
    turns: t.loadable({
      type: TurnConnection,
      description: 'Its latest turns, oldest first. Page further back with `Query.turns(sessionId, before: pageInfo.startCursor)`.',
      // byPath: every session at this path shares `last`, so one statement serves them all.
      byPath: true,
      args: {
        last: t.arg.int({
          required: true,
          defaultValue: 20,
          description: `How many of the latest turns (0 to ${MAX_PAGE}).`,
          validate: z.number().int().min(0).max(MAX_PAGE),
        }),
      },
      load: async (sessions: SessionRow[], context, { last }): Promise<TurnPage[]> => {
        const ids = sessions.map((s) => s.id);
        const rows = last === 0 ? new Map() : recentTurnsBySession(context.store, ids, last);
        const counts = turnCountsBySession(context.store, ids);
        return sessions.map((s) => {
          const shown = rows.get(s.id) ?? [];
          const total = counts.get(s.id) ?? 0;
          return turnPage(shown, total > shown.length, total, false);
        });
      },
      resolve: (session) => session,
    }),
  }),
});

const SessionConnection = countedConnection({
  type: SessionRef,
  name: 'SessionConnection',
  description: 'A page of sessions, most recently active first.',
  total: 'How many sessions there are, across all pages.',
  edge: 'A session in a page, with its cursor.',
});

builder.queryFields((t) => ({
  session: t.field({
    type: SessionRef,
    nullable: true,
    description: 'One session by id; null when no turn was ever stored under it.',
    args: { id: t.arg.string({ required: true, description: 'The session id.' }) },
    resolve: (_root, { id }, { store }) => getSession(store, id) ?? null,
  }),
  sessions: t.field({
    type: SessionConnection,
    description: 'All sessions, most recently active first, a page at a time.',
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: z.number().int().min(0).max(MAX_PAGE),
      }),
      after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
    },
    resolve: (_root, args, { store }) => offsetPage(args, (window) => listSessions(store, window)),
  }),
}));
