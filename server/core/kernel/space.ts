// Memory spaces (docs/architecture.md#spaces, #scope): every owned row belongs to one user, and optionally to one agent of
// that user. The space is resolved once per request (from the token and the arguments) and
// passed to every domain function right after the store, so a path that forgets it does not compile.
import { z } from 'zod';
import type { SqlParam } from './sql-param.ts';
import { parseInput } from './validation.ts';

export type Space = {
  userId: string;
  /** This agent's own memory of the user; null for the user's shared memory. */
  agentId: string | null;
};

export const DEFAULT_USER = 'default';
export const DEFAULT_SPACE: Space = Object.freeze({ userId: DEFAULT_USER, agentId: null });

const ID_PATTERN = /^[A-Za-z0-9._:@-]+$/;
const idSchema = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(128, `${what} must be at most 128 characters`)
    .regex(ID_PATTERN, `${what} may only contain letters, digits and . _ : @ -`);

export const userIdSchema = idSchema('a user id');
export const agentIdSchema = idSchema('an agent id');

// Built once: zod compiles an object schema's parser on its first use, which every request would
// pay again for a schema made per call (0.2 ms of CPU a request, measured under bench:load).
const userField = z.object({ userId: userIdSchema });
const agentField = z.object({ agentId: agentIdSchema });

/** A checked space; a malformed or overlong id is BAD_USER_INPUT (field userId / agentId). */
export function spaceOf(userId: string | null | undefined, agentId?: string | null): Space {
  return {
    userId: userId == null ? DEFAULT_USER : parseInput(userField, { userId }).userId,
    agentId: agentId == null ? null : parseInput(agentField, { agentId }).agentId,
  };
}

/**
 * Who may see a row: the same user and, for a space with an agent, that agent's rows and the
 * user's shared ones (agent null). A space without an agent sees every row of the user.
 */
export function visibleIn(space: Space, row: { userId: string; agentId?: string | null }): boolean {
  if (row.userId !== space.userId) return false;
  return space.agentId === null || row.agentId == null || row.agentId === space.agentId;
}

/**
 * The SQL form of visibleIn for a table aliased `alias`: user, then agent. Parameters in order.
 * The agent clause binds the agent twice so the statement text is one per alias (prepared once).
 */
export function spaceClause(space: Space, alias: string): { sql: string; params: SqlParam[] } {
  return {
    sql: `${alias}.user_id = ? and (cast(? as text) is null or ${alias}.agent_id is null or ${alias}.agent_id = ?)`,
    params: [space.userId, space.agentId, space.agentId],
  };
}

/**
 * The rows a write in `space` may merge into or supersede: the same agent's and the shared
 * ones. A write without an agent touches only shared memory, never an agent's own.
 */
export function writableClause(space: Space, alias: string): { sql: string; params: SqlParam[] } {
  return { sql: writableSql(alias), params: [space.userId, space.agentId] };
}

/** writableClause's SQL alone (it depends only on the alias), for statement text built once. */
export const writableSql = (alias: string) =>
  `${alias}.user_id = ? and (${alias}.agent_id is null or ${alias}.agent_id = ?)`;

/** The space a stored row lives in (work derived from a turn stays in the turn's space). */
export const spaceOfRow = (row: { userId: string; agentId?: string | null }): Space => ({
  userId: row.userId,
  agentId: row.agentId ?? null,
});

/** A user's token in the FTS indexes' `space` column (server/storage/sqlite/search-index.ts builds the same in SQL). */
export const spaceToken = (userId: string) => `u${Buffer.from(userId, 'utf8').toString('hex')}x`;

/** An FTS5 query for `expression` (safe FTS syntax over quoted terms) in `column`, within one user's rows. */
export const scopedMatch = (userId: string, column: string, expression: string) =>
  `space : "${spaceToken(userId)}" AND ${column} : (${expression})`;
