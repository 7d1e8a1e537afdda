// Scoped access tokens (D12). The admin token (SM_API_TOKEN) creates tokens that reach one user
// (and one agent, when set), optionally read-only. A token is shown once; only its SHA-256 hash
// is stored, so neither the database nor a log ever holds a usable token.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { agentIdSchema, spaceOf, userIdSchema, type Space } from './space.ts';
import { forbidden, notFound } from './errors.ts';
import { prepared, publish, write, type Store } from './store.ts';
import { parseInput } from './validation.ts';

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

/** Creates a token; the returned `token` is the only time its secret is ever available. */
export function createToken(store: Store, input: CreateTokenInput): { token: string; row: TokenRow } {
  const parsed = parseInput(createTokenSchema, input);
  // 32 random bytes: guessing is out of reach, and the hash needs no salt or slow KDF.
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return write(store, () => {
    const now = store.clock.now();
    const row = store.sqlite
      .prepare(
        `insert into access_tokens (token_hash, prefix, user_id, agent_id, read_only, label, created_at) values (?, ?, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
      )
      .get(hashToken(token), token.slice(0, TOKEN_PREFIX.length + 6), parsed.userId, parsed.agentId ?? null, parsed.readOnly ? 1 : 0, parsed.label ?? null, now) as TokenRow;
    publish(store, { type: 'token', action: 'created', tokenId: row.id, userId: row.userId, at: now });
    return { token, row: decode(row) };
  });
}

export const listTokensSchema = z.object({
  userId: userIdSchema.nullish(),
  includeRevoked: z.boolean().default(false),
});

export function listTokens(store: Store, input: z.input<typeof listTokensSchema> = {}): TokenRow[] {
  const { userId, includeRevoked } = parseInput(listTokensSchema, input);
  const rows = store.sqlite
    .prepare(`select ${COLUMNS} from access_tokens where (@userId is null or user_id = @userId) and (@all or revoked_at is null) order by id`)
    .all({ userId: userId ?? null, all: includeRevoked ? 1 : 0 }) as TokenRow[];
  return rows.map(decode);
}

/** Revokes a token at once: the next request with it is refused (open subscriptions are closed by the host). */
export function revokeToken(store: Store, id: number): TokenRow {
  const tokenId = parseInput(z.number().int().positive(), id);
  return write(store, () => {
    const now = store.clock.now();
    const row = store.sqlite.prepare(`update access_tokens set revoked_at = coalesce(revoked_at, ?) where id = ? returning ${COLUMNS}`).get(now, tokenId) as TokenRow | undefined;
    if (!row) throw notFound('token', tokenId);
    publish(store, { type: 'token', action: 'revoked', tokenId, userId: row.userId, at: now });
    return decode(row);
  });
}

/** The access a presented token grants, or null for an unknown or revoked one. */
export function accessForToken(store: Store, token: string): Access | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = prepared(store, 'token.byHash', () => store.sqlite.prepare(`select ${COLUMNS} from access_tokens where token_hash = ?`)).get(hashToken(token)) as
    | TokenRow
    | undefined;
  if (!row || row.revokedAt !== null) return null;
  noteUse(store, row);
  return { admin: false, tokenId: row.id, space: { userId: row.userId, agentId: row.agentId }, readOnly: Boolean(row.readOnly) };
}

/** last_used_at moves at most this often: a read must not turn into a write every time. */
const USE_GRANULARITY_MS = 60_000;

/**
 * Records when a token was last used, for the token list. Never waits for the write lock (another
 * process may hold it for seconds): a busy database just skips this minute's note.
 */
function noteUse(store: Store, row: TokenRow) {
  const now = store.clock.now();
  if (row.lastUsedAt !== null && now - row.lastUsedAt < USE_GRANULARITY_MS) return;
  if (store.pending) return; // inside a write: its own statements only
  const timeout = store.sqlite.pragma('busy_timeout', { simple: true }) as number;
  store.sqlite.pragma('busy_timeout = 0');
  try {
    prepared(store, 'token.used', () => store.sqlite.prepare('update access_tokens set last_used_at = ? where id = ?')).run(now, row.id);
  } catch (error) {
    if (!(error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw error;
  } finally {
    store.sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}

/** Of these token ids, the ones still valid (for the host to close subscriptions of the others). */
export function liveTokenIds(store: Store, ids: readonly number[]): Set<number> {
  if (ids.length === 0) return new Set();
  const rows = prepared(store, 'token.live', () =>
    store.sqlite.prepare('select id from access_tokens where id in (select value from json_each(?)) and revoked_at is null').pluck(),
  ).all(JSON.stringify(ids)) as number[];
  return new Set(rows);
}

/**
 * The space a request works in: the ids it names, checked against its access. A user token may
 * only name its own user (and its agent, when bound to one); a read-only token may not write.
 */
export function spaceFor(access: Access, named: { userId?: string | null; agentId?: string | null }, mode: 'read' | 'write'): Space {
  if (access.admin) return spaceOf(named.userId, named.agentId);
  const own = access.space;
  if (named.userId != null && named.userId !== own.userId) throw forbidden('this token may only reach its own user');
  if (own.agentId !== null && named.agentId != null && named.agentId !== own.agentId) throw forbidden('this token may only reach its own agent');
  if (mode === 'write' && access.readOnly) throw forbidden('this token is read-only');
  return spaceOf(own.userId, own.agentId ?? named.agentId);
}

/** Operations over the whole file (users, tokens, config, jobs) take the admin token. */
export function requireAdminAccess(access: Access): void {
  if (!access.admin) throw forbidden('this needs the admin token (SM_API_TOKEN), not a user token');
}
