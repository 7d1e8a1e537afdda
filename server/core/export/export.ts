// Export as JSON Lines: a version header, then every record in dependency order (sessions,
// turns, memories, entities, then the rows that link them). Import (import-records.ts) reads it
// back, so export -> import into a fresh db -> export gives the same records.
import { and, getTableColumns, sql, type InferSelectModel, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  entities,
  memories,
  memoryEntities,
  memoryEvents,
  memoryRelations,
  memorySources,
  sessions,
  turnEntities,
  turns,
} from '../../../drizzle/schema.ts';
import type { Store } from '../kernel/store.ts';

export const EXPORT_FORMAT = 'symbiosis-memory';
/** 2: records carry their userId (version 1 files, from before memory spaces, belong to `default`). */
export const EXPORT_VERSION = 2;
const EXPORT_PAGE = 1000;

const TABLES = {
  session: sessions,
  turn: turns,
  memory: memories,
  entity: entities,
  source: memorySources,
  relation: memoryRelations,
  event: memoryEvents,
  memory_entity: memoryEntities,
  turn_entity: turnEntities,
} as const;
export type RecordType = keyof typeof TABLES;
export const RECORD_TYPES = Object.keys(TABLES) as RecordType[];

export type ExportHeader = { type: 'header'; format: typeof EXPORT_FORMAT; version: number; exportedAt: number };
export type ExportRecord = { [K in RecordType]: { type: K } & InferSelectModel<(typeof TABLES)[K]> }[RecordType];

/** Which rows of each table belong to the user (links follow their owner rows). */
const OWNED_BY: Record<RecordType, (userId: string) => SQL> = {
  session: (u) => sql`user_id = ${u}`,
  turn: (u) => sql`user_id = ${u}`,
  memory: (u) => sql`user_id = ${u}`,
  entity: (u) => sql`user_id = ${u}`,
  event: (u) => sql`user_id = ${u}`,
  source: (u) => sql`memory_id in (select id from memories where user_id = ${u})`,
  relation: (u) => sql`from_id in (select id from memories where user_id = ${u})`,
  memory_entity: (u) => sql`memory_id in (select id from memories where user_id = ${u})`,
  turn_entity: (u) => sql`turn_id in (select id from turns where user_id = ${u})`,
};

/**
 * Each table's key (its fields), the order its rows are exported in: the same on every backend
 * (SQLite's rowid has no Postgres twin), read page by page along the key's index.
 */
const KEYS: Record<RecordType, readonly string[]> = {
  session: ['userId', 'id'],
  turn: ['id'],
  memory: ['id'],
  entity: ['id'],
  source: ['memoryId', 'turnId'],
  relation: ['fromId', 'toId', 'kind'],
  event: ['id'],
  memory_entity: ['memoryId', 'entityId'],
  turn_entity: ['turnId', 'entityId'],
};

/** Rows past `last` (the previous page's last row) by the key: a row value, which both backends compare in key order. */
function pastKey(
  key: readonly SQLiteColumn[],
  fields: readonly string[],
  last: Record<string, unknown> | undefined,
): SQL | undefined {
  if (!last) return undefined;
  return sql`(${sql.join([...key], sql`, `)}) > (${sql.join(
    fields.map((field) => sql`${last[field]}`),
    sql`, `,
  )})`;
}

/**
 * Every record (of one user, or of every user when `userId` is null), header first, in an order
 * where each row comes after the rows it references. Records carry their userId.
 */
export async function* exportRecords(
  store: Store,
  options: { userId?: string | null } = {},
): AsyncGenerator<ExportHeader | ExportRecord> {
  const userId = options.userId ?? null;
  yield { type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: store.clock.now() };
  for (const type of RECORD_TYPES) {
    const table = TABLES[type] as typeof sessions;
    const fields = KEYS[type];
    const key = fields.map((field) => (getTableColumns(table) as Record<string, SQLiteColumn>)[field]!);
    // Pages by the key, so a large db is never held in memory at once.
    for (let last: Record<string, unknown> | undefined; ; ) {
      const page = await store.db
        .select()
        .from(table)
        .where(and(pastKey(key, fields, last), userId === null ? undefined : OWNED_BY[type](userId)))
        .orderBy(...key)
        .limit(EXPORT_PAGE)
        .all();
      // An entity's own `type` column travels as `entityType`: `type` is the record type.
      for (const row of page) {
        yield (
          type === 'entity' ? { ...row, type, entityType: (row as unknown as { type: string }).type } : { ...row, type }
        ) as ExportRecord;
      }
      if (page.length < EXPORT_PAGE) break;
      last = page.at(-1);
    }
  }
}
