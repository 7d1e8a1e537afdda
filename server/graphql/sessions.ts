// Sessions: conversations, registered on their first turn.
import { z } from 'zod';
import type { SessionRow } from '../core/turns/sessions.ts';
import type { Space } from '../core/kernel/space.ts';
import { builder, type Context } from './builder.ts';
import { nestedSpace, readSpace, spaceArgs } from './spaces.ts';
import { countedConnection, MAX_PAGE, offsetPage, turnPage } from './pagination.ts';
import { SessionRef } from './refs.ts';
import { TurnConnection, type TurnPage } from './turns.ts';
import type { DigestLine } from '../core/digests/digest-lines.ts';
import { sessionDigest, type SessionDigest } from '../services/digests.ts';
import { getSession, listSessions, recentTurnsBySession, sessionKey, turnCountsBySession } from '../services/turns.ts';
import { groupBy } from '../services/kernel.ts';

const DigestLineRef = builder.objectRef<DigestLine>('DigestLine').implement({
  description: "One exchange of a session's extractive digest.",
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'When the request was said.' }),
    text: t.exposeString('text', {
      description:
        "The request or decision (led by its speaker's name when the turn has one), then `→` and what the answer said first.",
    }),
    turnIds: t.exposeIntList('turnIds', {
      description: 'The turns whose words it holds: the request, then the answer when there is one.',
    }),
  }),
});

const SessionDigestRef = builder.objectRef<SessionDigest>('SessionDigest').implement({
  description:
    'What happened in a session, in order: one line per exchange drawn from its turns (always current: a new turn adds its line, a ' +
    'forgotten turn takes its line along), and the summary a configured model wrote when the session was consolidated.',
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session.' }),
    lines: t.field({
      type: [DigestLineRef],
      description: 'One line per exchange, oldest first (the turns visible to the caller).',
      resolve: (d) => d.lines,
    }),
    summary: t.string({
      nullable: true,
      description: "The model's summary; null without a model, or until its background job has run.",
      resolve: (d) => d.summary?.summary ?? null,
    }),
    summaryModel: t.string({
      nullable: true,
      description: 'The model that wrote `summary`.',
      resolve: (d) => d.summary?.model ?? null,
    }),
    summaryTurnCount: t.int({
      nullable: true,
      description: 'How many turns `summary` covers (the session may have more since).',
      resolve: (d) => d.summary?.turnCount ?? null,
    }),
    summarizedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When `summary` was written.',
      resolve: (d) => d.summary?.createdAt ?? null,
    }),
  }),
});

/** Per session (by sessionKey), batched per user: each user's session ids are its own. */
async function perUser<T>(
  context: Context,
  sessions: SessionRow[],
  read: (space: Space, ids: string[]) => Promise<Map<string, T>>,
): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for (const [userId, group] of groupBy(sessions, (s) => s.userId)) {
    for (const [id, value] of await read(
      nestedSpace(context, userId),
      group.map((s) => s.id),
    ))
      out.set(sessionKey(userId, id), value);
  }
  return out;
}

SessionRef.implement({
  description: 'A conversation of one user: the turns that share a session id.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The session id chosen by the client (unique per user).' }),
    userId: t.exposeString('userId', { description: 'The user it belongs to.' }),
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
      byPath: true,
      load: async (sessions: SessionRow[], context) => {
        const counts = await perUser(context, sessions, (space, ids) => turnCountsBySession(context.store, space, ids));
        return sessions.map((s) => counts.get(sessionKey(s.userId, s.id)) ?? 0);
      },
      resolve: (session) => session,
    }),
    digest: t.field({
      type: SessionDigestRef,
      nullable: true,
      description:
        "Its digest: a line per exchange, in order, and a model's summary when one is configured. Null when it has no turn the caller may see.",
      resolve: (session, _args, context) =>
        sessionDigest(context.runtime, nestedSpace(context, session.userId), session.id),
    }),
    turns: t.loadable({
      type: TurnConnection,
      description:
        'Its latest turns, oldest first. Page further back with `Query.turns(sessionId, before: pageInfo.startCursor)`.',
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
        const { store } = context;
        const rows =
          last === 0
            ? new Map()
            : await perUser(context, sessions, (space, ids) => recentTurnsBySession(store, space, ids, last));
        const counts = await perUser(context, sessions, (space, ids) => turnCountsBySession(store, space, ids));
        return sessions.map((s) => {
          const shown = rows.get(sessionKey(s.userId, s.id)) ?? [];
          const total = counts.get(sessionKey(s.userId, s.id)) ?? 0;
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
    description: "One of the user's sessions by id; null when no turn was ever stored under it.",
    args: { id: t.arg.string({ required: true, description: 'The session id.' }), ...spaceArgs(t) },
    resolve: async (_root, args, context) =>
      (await getSession(context.store, readSpace(context, args), args.id)) ?? null,
  }),
  sessions: t.field({
    type: SessionConnection,
    description: "The user's sessions, most recently active first, a page at a time.",
    args: {
      ...spaceArgs(t),
      first: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: z.number().int().min(0).max(MAX_PAGE),
      }),
      after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
    },
    resolve: (_root, args, context) =>
      offsetPage(args, (window) => listSessions(context.store, readSpace(context, args), window)),
  }),
}));
