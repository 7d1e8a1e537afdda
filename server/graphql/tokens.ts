// Access tokens (admin): scoped tokens for one user (and agent), and what the caller's own token reaches.
import { z } from 'zod';
import type { TokenRow } from '../core/users/tokens.ts';
import { builder } from './builder.ts';
import { requireAdmin } from './spaces.ts';
import { createToken, listTokens, revokeToken } from '../services/tokens.ts';

const AccessToken = builder.objectRef<TokenRow>('AccessToken').implement({
  description: 'A token scoped to one user (and one agent, when set). The token itself is never stored: only its hash.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Stable id (to revoke it).' }),
    prefix: t.exposeString('prefix', { description: 'Its first characters, to recognise it (not enough to use it).' }),
    userId: t.exposeString('userId', { description: 'The only user it reaches.' }),
    agentId: t.exposeString('agentId', {
      nullable: true,
      description: 'The only agent it reaches; null: any agent of the user.',
    }),
    readOnly: t.exposeBoolean('readOnly', { description: 'True when it may only read.' }),
    label: t.exposeString('label', { nullable: true, description: 'A note of what it is for.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked; null while valid.',
    }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last used (to the minute); null if never.',
    }),
  }),
});

const CreatedToken = builder.objectRef<{ token: string; row: TokenRow }>('CreatedAccessToken').implement({
  description: 'A new token. `token` is shown this once: store it now, it cannot be read again.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The secret, to send as `Authorization: Bearer <token>`.' }),
    accessToken: t.field({ type: AccessToken, description: 'What it reaches.', resolve: (c) => c.row }),
  }),
});

const Viewer = builder
  .objectRef<{ admin: boolean; userId: string | null; agentId: string | null; readOnly: boolean }>('Viewer')
  .implement({
    description: 'What the token of this request may reach.',
    fields: (t) => ({
      admin: t.exposeBoolean('admin', {
        description: 'True for the admin token (or loopback without a token configured): every user.',
      }),
      userId: t.exposeString('userId', { nullable: true, description: 'For a user token: its user.' }),
      agentId: t.exposeString('agentId', {
        nullable: true,
        description: 'For a user token bound to an agent: that agent.',
      }),
      readOnly: t.exposeBoolean('readOnly', { description: 'True when writes are refused.' }),
    }),
  });

builder.queryFields((t) => ({
  viewer: t.field({
    type: Viewer,
    description: "What this request's token may reach.",
    resolve: (_root, _args, { access }) =>
      access.admin
        ? { admin: true, userId: null, agentId: null, readOnly: false }
        : { admin: false, userId: access.space.userId, agentId: access.space.agentId, readOnly: access.readOnly },
  }),
  accessTokens: t.field({
    type: [AccessToken],
    description: 'Scoped tokens, oldest first (admin token only).',
    args: {
      userId: t.arg.string({ description: 'Only tokens of this user.' }),
      includeRevoked: t.arg.boolean({ defaultValue: false, description: 'List revoked tokens too.' }),
    },
    resolve: (_root, args, context) => {
      requireAdmin(context);
      return listTokens(context.store, { userId: args.userId, includeRevoked: args.includeRevoked ?? false });
    },
  }),
}));

builder.mutationFields((t) => ({
  createAccessToken: t.field({
    type: CreatedToken,
    description:
      'Creates a token that reaches one user (and one agent, when given), optionally read-only (admin token only). ' +
      'Its secret is returned once and stored only as a hash.',
    args: {
      userId: t.arg.string({ required: true, description: 'The user it reaches.' }),
      agentId: t.arg.string({ description: 'The agent it reaches (any agent of the user when omitted).' }),
      readOnly: t.arg.boolean({ defaultValue: false, description: 'Refuse every write.' }),
      label: t.arg.string({ description: 'A note of what it is for.' }),
    },
    resolve: (_root, args, context) => {
      requireAdmin(context);
      return createToken(context.store, {
        userId: args.userId,
        agentId: args.agentId,
        readOnly: args.readOnly ?? false,
        label: args.label,
      });
    },
  }),
  revokeAccessToken: t.field({
    type: AccessToken,
    description:
      'Revokes a token at once: its next request is refused and its open subscriptions close (admin token only). NOT_FOUND for an unknown id.',
    args: { id: t.arg.int({ required: true, description: 'The token id.', validate: z.number().int().positive() }) },
    resolve: (_root, { id }, context) => {
      requireAdmin(context);
      return revokeToken(context.store, id);
    },
  }),
}));
