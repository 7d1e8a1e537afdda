// Scoped access tokens (docs/architecture.md#scope). The admin token (SM_API_TOKEN) creates tokens that reach one user
// (and one agent, when set), optionally read-only. A token is shown once; only its SHA-256 hash
// is stored, so neither the database nor a log ever holds a usable token.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { agentIdSchema, spaceOf, userIdSchema, type Space } from '../kernel/space.ts';
import { forbidden, notFound } from '../kernel/errors.ts';
import { currentWrite, publish, write, writeIfFree, type Store } from '../kernel/store.ts';
import { parseInput } from '../kernel/validation.ts';

export type TokenRow = {
  id: number;
  prefix: string;
  userId: string;
  agentId: string | null;
  readOnly: boolean;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
};

/** What a request may do: everything (admin), or one space, possibly read-only. */
export type Access = { admin: true } | { admin: false; tokenId: number; space: Space; readOnly: boolean };

export const ADMIN: Access = Object.freeze({ admin: true });

const TOKEN_PREFIX = 'smt_';
export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export const createTokenSchema = z.object({
  userId: userIdSchema,
  agentId: agentIdSchema.nullish(),
  readOnly: z.boolean().default(false),
  label: z.string().trim().max(200).nullish(),
});
export type CreateTokenInput = z.input<typeof createTokenSchema>;

const COLUMNS = `id, prefix, user_id as userId, agent_id as agentId, read_only as readOnly, label, created_at as createdAt, revoked_at as revokedAt, last_used_at as lastUsedAt`;
const decode = (row: TokenRow) => ({ ...row, readOnly: Boolean(row.readOnly) });

const INSERT_TOKEN = `insert into access_tokens (token_hash, prefix, user_id, agent_id, read_only, label, created_at) values (?, ?, ?, ?, ?, ?, ?) returning ${COLUMNS}`;
const LIST_TOKENS = `select ${COLUMNS} from access_tokens where (cast(? as text) is null or user_id = ?) and (cast(? as integer) = 1 or revoked_at is null) order by id`;
const REVOKE_TOKEN = `update access_tokens set revoked_at = coalesce(revoked_at, ?) where id = ? returning ${COLUMNS}`;
const TOKEN_BY_HASH = `select ${COLUMNS} from access_tokens where token_hash = ?`;
const NOTE_USE = 'update access_tokens set last_used_at = ? where id = ?';
const LIVE_TOKENS = 'select id from access_tokens where id in (select value from sm_ids(?)) and revoked_at is null';

/** Creates a token; the returned `token` is the only time its secret is ever available. */
export async function createToken(store: Store, input: CreateTokenInput): Promise<{ token: string; row: TokenRow }> {
  const parsed = parseInput(createTokenSchema, input);
  // 32 random bytes: guessing is out of reach, and the hash needs no salt or slow KDF.
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return write(store, async () => {
    const now = store.clock.now();
    const row = (await store.sql.get<TokenRow>(INSERT_TOKEN, [
      hashToken(token),
      token.slice(0, TOKEN_PREFIX.length + 6),
      parsed.userId,
      parsed.agentId ?? null,
      parsed.readOnly ? 1 : 0,
      parsed.label ?? null,
      now,
    ]))!;
    publish(store, { type: 'token', action: 'created', tokenId: row.id, userId: row.userId, at: now });
    return { token, row: decode(row) };
  });
}

export const listTokensSchema = z.object({
  userId: userIdSchema.nullish(),
  includeRevoked: z.boolean().default(false),
});

export async function listTokens(store: Store, input: z.input<typeof listTokensSchema> = {}): Promise<TokenRow[]> {
  const { userId, includeRevoked } = parseInput(listTokensSchema, input);
  const rows = await store.sql.all<TokenRow>(LIST_TOKENS, [userId ?? null, userId ?? null, includeRevoked ? 1 : 0]);
  return rows.map(decode);
}

/** Revokes a token at once: the next request with it is refused (open subscriptions are closed by the host). */
export async function revokeToken(store: Store, id: number): Promise<TokenRow> {
  const tokenId = parseInput(z.number().int().positive(), id);
  return write(store, async () => {
    const now = store.clock.now();
    const row = await store.sql.get<TokenRow>(REVOKE_TOKEN, [now, tokenId]);
    if (!row) throw notFound('token', tokenId);
    publish(store, { type: 'token', action: 'revoked', tokenId, userId: row.userId, at: now });
    return decode(row);
  });
}

/** The access a presented token grants, or null for an unknown or revoked one. */
export async function accessForToken(store: Store, token: string): Promise<Access | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await store.sql.get<TokenRow>(TOKEN_BY_HASH, [hashToken(token)]);
  if (!row || row.revokedAt !== null) return null;
  await noteUse(store, row);
  return {
    admin: false,
    tokenId: row.id,
    space: { userId: row.userId, agentId: row.agentId },
    readOnly: Boolean(row.readOnly),
  };
}

/** last_used_at moves at most this often: a read must not turn into a write every time. */
const USE_GRANULARITY_MS = 60_000;

/**
 * Records when a token was last used, for the token list. Never waits for the write lock (another
 * process may hold it for seconds): a busy database just skips this minute's note.
 */
async function noteUse(store: Store, row: TokenRow) {
  const now = store.clock.now();
  if (row.lastUsedAt !== null && now - row.lastUsedAt < USE_GRANULARITY_MS) return;
  if (currentWrite(store)) return; // inside a write: its own statements only
  await writeIfFree(store, () => store.sql.run(NOTE_USE, [now, row.id]));
}

/** Of these token ids, the ones still valid (for the host to close subscriptions of the others). */
export async function liveTokenIds(store: Store, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await store.sql.all<{ id: number }>(LIVE_TOKENS, [JSON.stringify(ids)]);
  return new Set(rows.map((row) => row.id));
}

/**
 * The space a request works in: the ids it names, checked against its access. A user token may
 * only name its own user (and its agent, when bound to one); a read-only token may not write.
 */
export function spaceFor(
  access: Access,
  named: { userId?: string | null; agentId?: string | null },
  mode: 'read' | 'write',
): Space {
  if (access.admin) return spaceOf(named.userId, named.agentId);
  const own = access.space;
  if (named.userId != null && named.userId !== own.userId) throw forbidden('this token may only reach its own user');
  if (own.agentId !== null && named.agentId != null && named.agentId !== own.agentId)
    throw forbidden('this token may only reach its own agent');
  if (mode === 'write' && access.readOnly) throw forbidden('this token is read-only');
  return spaceOf(own.userId, own.agentId ?? named.agentId);
}

/** Operations over the whole file (users, tokens, config, jobs) take the admin token. */
export function requireAdminAccess(access: Access): void {
  if (!access.admin) throw forbidden('this needs the admin token (SM_API_TOKEN), not a user token');
}
