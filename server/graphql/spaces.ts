// Which memory space a field works in (docs/architecture.md#scope). Every root field that reads or writes a user's
// data takes `userId` and `agentId`; the request's access (the token) decides what they may be.
import type { Space } from '../core/kernel/space.ts';
import type { Access } from '../core/users/tokens.ts';
import type { builder, Context } from './builder.ts';
import { visibleIn } from '../services/tokens.ts';
import { requireAdminAccess, spaceFor } from '../services/tokens.ts';

/** Query, mutation and subscription field builders share this argument builder. */
type ArgBuilder = Parameters<Parameters<typeof builder.queryFields>[0]>[0]['arg'];

export const SPACE_RULE =
  "With an `agentId`, reads see that agent's own memories plus the user's shared ones (agent null), and writes become that agent's own; " +
  "without one, reads see all of the user's memories and writes are shared by every agent of the user.";

/** The `userId` / `agentId` arguments, described once. */
export const spaceArgs = (t: { arg: ArgBuilder }) => ({
  userId: t.arg.string({
    description:
      "Whose memory: a user id of up to 128 letters, digits and `.` `_` `:` `@` `-`. Defaults to the token's user, else `default`. " +
      'A scoped token may only name its own user (else FORBIDDEN).',
  }),
  agentId: t.arg.string({ description: `Which agent of that user (optional). ${SPACE_RULE}` }),
});

/** The space a field works in: the arguments, checked against the request's token. */
export const readSpace = (context: Context, args: { userId?: string | null; agentId?: string | null }): Space =>
  spaceFor(context.access, args, 'read');

/** As readSpace, for a field that writes: a read-only token is refused. */
export const writeSpace = (context: Context, args: { userId?: string | null; agentId?: string | null }): Space =>
  spaceFor(context.access, args, 'write');

/** For fields over the whole file (users, tokens, config, jobs): the admin token only. */
export const requireAdmin = (context: Context): void => requireAdminAccess(context.access);

/** A space the admin may leave open (every user) and a user token narrows to its own user. */
export function optionalSpace(
  context: Context,
  args: { userId?: string | null; agentId?: string | null },
): Space | null {
  if (context.access.admin && args.userId == null) return null;
  return readSpace(context, args);
}

/** Whether a row may be shown in this request at all: a scoped token sees its user's rows (and its agent's and the shared ones, when bound to an agent). */
export const reachable = (access: Access, row: { userId: string; agentId?: string | null }) =>
  access.admin || visibleIn(access.space, row);

/**
 * The space of a nested list (an entity's memories, a session's turns) under a parent of
 * `userId`: the parent's user, narrowed to the token's agent for a token bound to one.
 */
export const nestedSpace = (context: Context, userId: string): Space => ({
  userId,
  agentId: context.access.admin ? null : context.access.space.agentId,
});
