// Users (admin): who has memory here, with counts, and forgetUser, which erases one entirely.
import { z } from 'zod';
import type { ForgetUserResult, UserRow } from '../core/users/users.ts';
import { builder } from './builder.ts';
import { countedConnection, MAX_PAGE, offsetPage } from './pagination.ts';
import { requireAdmin } from './spaces.ts';
import { forgetUser, listUsers } from '../services/users.ts';

const User = builder.objectRef<UserRow>('User').implement({
  description: 'A user that owns memory here (registered on its first write), with what it owns.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The user id.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When its first data was written.' }),
    lastActiveAt: t.expose('lastActiveAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Its latest turn or memory; null when it has neither.',
    }),
    turns: t.exposeInt('turns', { description: 'Turns stored.' }),
    sessions: t.exposeInt('sessions', { description: 'Sessions.' }),
    memories: t.exposeInt('memories', { description: 'Memories of every status.' }),
    activeMemories: t.exposeInt('activeMemories', { description: 'Active memories.' }),
    entities: t.exposeInt('entities', { description: 'Entities in its registry.' }),
  }),
});

const UserConnection = countedConnection({
  type: User,
  name: 'UserConnection',
  description: 'A page of users, by id.',
  total: 'How many users match, across all pages.',
  edge: 'A user in a page, with its cursor.',
});

const ForgetUserReport = builder.objectRef<ForgetUserResult>('ForgetUserReport').implement({
  description: 'What forgetUser deleted (rows of each kind).',
  fields: (t) => ({
    userId: t.exposeString('userId', { description: 'The user erased.' }),
    turns: t.exposeInt('turns', { description: 'Turns deleted.' }),
    sessions: t.exposeInt('sessions', { description: 'Sessions deleted.' }),
    memories: t.exposeInt('memories', { description: 'Memories deleted (every status).' }),
    entities: t.exposeInt('entities', { description: 'Entities deleted.' }),
    events: t.exposeInt('events', { description: 'Decision-log entries deleted.' }),
    jobs: t.exposeInt('jobs', { description: 'Background jobs deleted (pending, finished and dead).' }),
    tokens: t.exposeInt('tokens', { description: 'Access tokens of the user deleted.' }),
    vectors: t.exposeInt('vectors', { description: 'Stored vectors deleted.' }),
    vacuumed: t.exposeBoolean('vacuumed', {
      description: 'True when the file was rewritten (VACUUM) so no freed page keeps the text.',
    }),
  }),
});

builder.queryFields((t) => ({
  users: t.field({
    type: UserConnection,
    description: 'Every user with memory here, by id, with counts (admin token only).',
    args: {
      prefix: t.arg.string({ description: 'Only users whose id starts with this.' }),
      first: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `Page size (0 to ${MAX_PAGE}).`,
        validate: z.number().int().min(0).max(MAX_PAGE),
      }),
      after: t.arg.string({ description: 'Cursor to continue after (`pageInfo.endCursor`).' }),
    },
    resolve: (_root, args, context) => {
      requireAdmin(context);
      return offsetPage(args, (window) => listUsers(context.store, { prefix: args.prefix, ...window }));
    },
  }),
}));

builder.mutationFields((t) => ({
  forgetUser: t.field({
    type: ForgetUserReport,
    description:
      'Hard-deletes everything of one user in one transaction: turns, sessions, memories of every status, entities, decision log, ' +
      'jobs, access tokens, search-index entries and vectors (admin token only). An unknown user deletes nothing. With `vacuum`, ' +
      'the database file is rewritten afterwards so that no freed page still holds the text (slower on a large file).',
    args: {
      userId: t.arg.string({ required: true, description: 'The user to erase.' }),
      vacuum: t.arg.boolean({ defaultValue: false, description: 'Rewrite the file afterwards (VACUUM).' }),
    },
    resolve: (_root, args, context) => {
      requireAdmin(context);
      return forgetUser(context.store, { userId: args.userId, vacuum: args.vacuum });
    },
  }),
}));
