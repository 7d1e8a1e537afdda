// Users are first-class (docs/architecture.md#spaces): registered on their first write, listed with what they own, and
// erasable in one transaction (forgetUser) down to the last index entry.
import { z } from 'zod';
import { userIdSchema } from '../kernel/space.ts';
import { noted, publish, write, type Store } from '../kernel/store.ts';
import { parseInput } from '../kernel/validation.ts';
import { dropIndexes } from '../vectors/vector-index.ts';
import { LEGACY_VECTOR_TABLES, VECTOR_TABLES } from '../vectors/vector-state.ts';

const ENSURE_USER = 'insert into users (id, created_at) values (?, ?) on conflict do nothing';

/** The users a write has registered or found registered: one statement each per transaction, not one per row it adds. */
const PRESENT = 'users present';

/** Registers the user on its first write (a no-op afterwards). Inside the caller's transaction. */
export async function ensureUser(store: Store, userId: string) {
  const present = noted(store, PRESENT);
  if (present?.has(userId)) return;
  await store.sql.run(ENSURE_USER, [userId, store.clock.now()]);
  present?.add(userId);
}

/** Notes that the user is registered (the caller found a row of theirs in this transaction), so ensureUser skips it. */
export function userPresent(store: Store, userId: string) {
  noted(store, PRESENT)?.add(userId);
}

export type UserRow = {
  id: string;
  createdAt: number;
  turns: number;
  sessions: number;
  memories: number;
  activeMemories: number;
  entities: number;
  /** The latest turn or memory, epoch ms; null for a user with neither. */
  lastActiveAt: number | null;
};

const COUNTS = `
  (select count(*) from turns where user_id = u.id) as turns,
  (select count(*) from sessions where user_id = u.id) as sessions,
  (select count(*) from memories where user_id = u.id) as memories,
  (select count(*) from memories where user_id = u.id and status = 'active') as activeMemories,
  (select count(*) from entities where user_id = u.id) as entities,
  (select max(at) from (select max(last_seen_at) as at from sessions where user_id = u.id
    union all select max(created_at) from memories where user_id = u.id) latest) as lastActiveAt`;

export const listUsersSchema = z.object({
  /** Only users whose id starts with this. */
  prefix: z.string().max(128).nullish(),
  limit: z.number().int().min(1).max(500).default(50),
  offset: z.number().int().min(0).default(0),
});
export type ListUsersInput = z.input<typeof listUsersSchema>;

/** Users by id, with their counts (admin). */
export async function listUsers(store: Store, input: ListUsersInput = {}): Promise<{ rows: UserRow[]; total: number }> {
  const { prefix, limit, offset } = parseInput(listUsersSchema, input);
  // A prefix range on the primary key: '\uffff' sorts after every id character in byte order
  // (SQLite's; on Postgres asked for, whatever the database's collation).
  const byteOrder = store.dialect.statements.byteOrder;
  const range = prefix ? `where u.id${byteOrder} >= ? and u.id${byteOrder} < ?` : '';
  const params = prefix ? [prefix, `${prefix}\uffff`] : [];
  const rows = await store.sql.all<UserRow>(
    `select u.id as id, u.created_at as createdAt, ${COUNTS} from users u ${range} order by u.id limit ? offset ?`,
    [...params, limit, offset],
  );
  const total = (await store.sql.get<{ n: number }>(`select count(*) as n from users u ${range}`, params))!.n;
  return { rows: rows.map((r) => ({ ...r, lastActiveAt: r.lastActiveAt || null })), total };
}

export async function getUser(store: Store, userId: string): Promise<UserRow | undefined> {
  const row = await store.sql.get<UserRow>(
    `select u.id as id, u.created_at as createdAt, ${COUNTS} from users u where u.id = ?`,
    [userId],
  );
  return row && { ...row, lastActiveAt: row.lastActiveAt || null };
}

export type ForgetUserResult = {
  userId: string;
  turns: number;
  sessions: number;
  memories: number;
  entities: number;
  events: number;
  jobs: number;
  tokens: number;
  vectors: number;
  vacuumed: boolean;
};

/** Plain tables, and vec0 tables of an earlier release not moved yet (moved when vectors go on). */
const VECTOR_TABLE_NAMES = [...Object.values(VECTOR_TABLES), ...Object.values(LEGACY_VECTOR_TABLES)];

/**
 * Hard-deletes everything of one user in one transaction: turns, sessions, memories (every
 * status), entities and their links, the decision log, jobs, access tokens, FTS entries (the
 * delete triggers) and vectors. With `vacuum`, the file is rewritten afterwards so no deleted
 * page keeps the text. The default user can be forgotten too; it comes back on the next write.
 */
export async function forgetUser(
  store: Store,
  input: { userId: string; vacuum?: boolean | null },
): Promise<ForgetUserResult> {
  const userId = parseInput(z.object({ userId: userIdSchema }), { userId: input.userId }).userId;
  const result = await write(store, async () => {
    // Gone from here on, should the same transaction write for this user again.
    noted(store, PRESENT)?.delete(userId);
    const run = async (sql: string, params: string[] = [userId]) => (await store.sql.run(sql, params)).changes;
    let vectors = 0;
    for (const table of VECTOR_TABLE_NAMES) {
      if (!(await store.sql.get(store.dialect.statements.tableExists, [table]))) continue;
      vectors += await run(`delete from ${table} where user_id = ?`);
    }
    // Junction rows go with their owners (foreign keys cascade); links and relations likewise.
    const memories = await run('delete from memories where user_id = ?');
    const turns = await run('delete from turns where user_id = ?');
    const sessions = await run('delete from sessions where user_id = ?');
    const entities = await run('delete from entities where user_id = ?');
    const events = await run('delete from memory_events where user_id = ?');
    // Jobs of the user, by their row or by their payload (which names users it works on).
    const payloadUser = store.dialect.statements.jsonField('payload', 'userId');
    const jobs = await run(`delete from jobs where user_id = ? or ${payloadUser} = ?`, [userId, userId]);
    const tokens = await run('delete from access_tokens where user_id = ?');
    await run('delete from users where id = ?');
    publish(store, { type: 'user', action: 'forgotten', userId, at: store.clock.now() });
    return { userId, turns, sessions, memories, entities, events, jobs, tokens, vectors, vacuumed: false };
  });
  // The user's sign bits held in memory for KNN go too.
  dropIndexes(store, userId);
  if (input.vacuum) {
    await store.sql.compact();
    result.vacuumed = true;
  }
  return result;
}
