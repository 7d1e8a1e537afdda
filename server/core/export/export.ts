// Export and import as JSON Lines: a version header, then every record in dependency order
// (sessions, turns, memories, entities, then the rows that link them). Import is idempotent:
// a record already present (same content and time) is mapped, not duplicated; ids are kept
// where they are free, so export -> import into a fresh db -> export gives the same records.
import { and, eq, getTableColumns, sql, type InferSelectModel, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
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
import { badInput } from '../kernel/errors.ts';
import { DEFAULT_USER, userIdSchema } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';
import { recordTurnDates } from '../turns/turn-dates.ts';
import { ensureUser } from '../users/users.ts';

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

export type ImportReport = Record<RecordType, { added: number; existing: number }> & { lines: number };

const headerSchema = z.object({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int(),
});

/** Exported id -> id here, knowing which ids here are taken by this import. */
class IdMap {
  private readonly ids = new Map<number, number>();
  private readonly taken = new Set<number>();
  get = (id: number) => this.ids.get(id);
  isTaken = (id: number) => this.taken.has(id);
  set(from: number, to: number) {
    this.ids.set(from, to);
    this.taken.add(to);
  }
}

type IdMaps = { turn: IdMap; memory: IdMap; entity: IdMap };
/** `into`: every record goes to this user; null keeps each record's own (version 1: `default`). */
type Target = { into: string | null };
type Placeable = typeof turns | typeof memories | typeof entities;

async function idFree(store: Store, table: Placeable, id: number) {
  return (await store.db.select({ id: table.id }).from(table).where(eq(table.id, id)).get()) === undefined;
}

/** Inserts a row, keeping its id when that id is free here. Returns the id it got. */
async function insertKeepingId<T extends { id: number }>(store: Store, table: Placeable, row: T): Promise<number> {
  const { id, ...rest } = row;
  const values = (await idFree(store, table, id)) ? row : rest;
  return (
    (await store.db
      .insert(table)
      .values(values as never)
      .returning({ id: table.id })
      .get()) as { id: number }
  ).id;
}

/**
 * Where a record lands here: its own id when that row is the same record; else a row with the
 * same identity that no other record of this import took (twins made in the same millisecond
 * stay two); else a new row, keeping its id when free.
 */
async function place(store: Store, table: Placeable, map: IdMap, row: { id: number }, identity: SQL): Promise<boolean> {
  const own = await store.db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.id, row.id), identity))
    .get();
  const twin =
    own && !map.isTaken(own.id)
      ? own
      : (await store.db.select({ id: table.id }).from(table).where(identity).all()).find((t) => !map.isTaken(t.id));
  map.set(row.id, twin?.id ?? (await insertKeepingId(store, table, row)));
  return twin === undefined;
}

/** The user a record lands in: the target, else its own (checked: a file is untrusted input). */
function ownerOf(record: object, target: Target): string {
  const row = record as { userId?: unknown };
  if (target.into) return target.into;
  if (row.userId === undefined || row.userId === null) return DEFAULT_USER;
  const parsed = userIdSchema.safeParse(row.userId);
  if (!parsed.success) throw new Error(`userId: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

async function importRecord(
  store: Store,
  record: ExportRecord,
  maps: IdMaps,
  report: ImportReport,
  target: Target,
): Promise<void> {
  const count = (added: boolean) => report[record.type][added ? 'added' : 'existing']++;
  const { type: _type, ...row } = record;
  switch (record.type) {
    case 'session': {
      const r = { ...(row as InferSelectModel<typeof sessions>), userId: ownerOf(row, target) };
      await ensureUser(store, r.userId);
      const existing = await store.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, r.userId), eq(sessions.id, r.id)))
        .get();
      if (!existing) await store.db.insert(sessions).values(r).run();
      count(!existing);
      return;
    }
    case 'turn': {
      const r = { ...(row as InferSelectModel<typeof turns>), userId: ownerOf(row, target) };
      const identity = and(
        eq(turns.userId, r.userId),
        eq(turns.sessionId, r.sessionId),
        eq(turns.at, r.at),
        eq(turns.role, r.role),
        eq(turns.text, r.text),
      )!;
      const added = await place(store, turns, maps.turn, r, identity);
      // Its dates are derived, not exported: resolved again against its own time.
      if (added) await recordTurnDates(store, { id: maps.turn.get(r.id)!, userId: r.userId, text: r.text, at: r.at });
      count(added);
      return;
    }
    case 'memory': {
      const r = { ...(row as InferSelectModel<typeof memories>), userId: ownerOf(row, target) };
      await ensureUser(store, r.userId);
      const identity = and(
        eq(memories.userId, r.userId),
        eq(memories.kind, r.kind),
        eq(memories.contentKey, r.contentKey),
        eq(memories.createdAt, r.createdAt),
      )!;
      count(await place(store, memories, maps.memory, r, identity));
      return;
    }
    case 'entity': {
      const { entityType, ...rest } = row as unknown as Omit<InferSelectModel<typeof entities>, 'type'> & {
        entityType: string;
      };
      const r: InferSelectModel<typeof entities> = { ...rest, type: entityType, userId: ownerOf(row, target) };
      count(
        await place(
          store,
          entities,
          maps.entity,
          r,
          and(eq(entities.userId, r.userId), eq(entities.nameKey, r.nameKey), eq(entities.type, r.type))!,
        ),
      );
      return;
    }
    case 'source': {
      const r = row as InferSelectModel<typeof memorySources>;
      const memoryId = maps.memory.get(r.memoryId);
      const turnId = maps.turn.get(r.turnId);
      if (memoryId === undefined || turnId === undefined)
        throw badInput(`source of memory ${r.memoryId} names a turn or memory missing from the file`);
      count(
        (
          await store.db
            .insert(memorySources)
            .values({ ...r, memoryId, turnId })
            .onConflictDoNothing()
            .run()
        ).changes > 0,
      );
      return;
    }
    case 'relation': {
      const r = row as InferSelectModel<typeof memoryRelations>;
      const fromId = maps.memory.get(r.fromId);
      const toId = maps.memory.get(r.toId);
      if (fromId === undefined || toId === undefined)
        throw badInput(`relation ${r.fromId} -> ${r.toId} names a memory missing from the file`);
      count(
        (
          await store.db
            .insert(memoryRelations)
            .values({ ...r, fromId, toId })
            .onConflictDoNothing()
            .run()
        ).changes > 0,
      );
      return;
    }
    case 'event': {
      const r = { ...(row as InferSelectModel<typeof memoryEvents>), userId: ownerOf(row, target) };
      // A `deleted` entry outlives its memory: its id may be in no map, and stays as it was.
      const memoryId = maps.memory.get(r.memoryId) ?? r.memoryId;
      const existing = await store.db
        .select({ id: memoryEvents.id })
        .from(memoryEvents)
        .where(and(eq(memoryEvents.memoryId, memoryId), eq(memoryEvents.action, r.action), eq(memoryEvents.at, r.at)))
        .get();
      if (!existing) {
        const { id, ...rest } = r;
        const free =
          (await store.db.select({ id: memoryEvents.id }).from(memoryEvents).where(eq(memoryEvents.id, id)).get()) ===
          undefined;
        await store.db
          .insert(memoryEvents)
          .values(free ? { ...r, memoryId } : { ...rest, memoryId })
          .run();
      }
      count(!existing);
      return;
    }
    case 'memory_entity':
    case 'turn_entity': {
      const entityId = maps.entity.get((row as { entityId: number }).entityId);
      if (record.type === 'memory_entity') {
        const memoryId = maps.memory.get(record.memoryId);
        if (memoryId === undefined || entityId === undefined)
          throw badInput('a memory-entity link names a row missing from the file');
        count(
          (await store.db.insert(memoryEntities).values({ memoryId, entityId }).onConflictDoNothing().run()).changes >
            0,
        );
      } else {
        const turnId = maps.turn.get(record.turnId);
        if (turnId === undefined || entityId === undefined)
          throw badInput('a turn-entity link names a row missing from the file');
        count(
          (await store.db.insert(turnEntities).values({ turnId, entityId }).onConflictDoNothing().run()).changes > 0,
        );
      }
      return;
    }
  }
}

const recordSchema = z.object({ type: z.enum(RECORD_TYPES as [RecordType, ...RecordType[]]) }).passthrough();

/**
 * Imports JSON Lines (header first). Lines are applied in transactions of `batch`; a bad line is
 * a BAD_USER_INPUT error naming its number, and its whole batch is rolled back.
 */
export async function importRecords(
  store: Store,
  lines: Iterable<string>,
  options: {
    batch?: number /** Called after each batch with the records read so far (header included). */;
    onProgress?: (lines: number) => void;
    userId?: string | null;
  } = {},
): Promise<ImportReport> {
  const target: Target = { into: options.userId ?? null };
  const report = Object.fromEntries(RECORD_TYPES.map((t) => [t, { added: 0, existing: 0 }])) as unknown as ImportReport;
  report.lines = 0;
  const maps: IdMaps = { turn: new IdMap(), memory: new IdMap(), entity: new IdMap() };
  const batchSize = options.batch ?? 500;
  let batch: { n: number; record: ExportRecord }[] = [];
  let sawHeader = false;
  const flush = async () => {
    await write(store, async () => {
      for (const { n, record } of batch) {
        try {
          await importRecord(store, record, maps, report, target);
        } catch (error) {
          throw badInput(`line ${n}: ${(error as Error).message}`);
        }
      }
    });
    batch = [];
    options.onProgress?.(report.lines);
  };
  // Errors name the line's number in the file; the report counts the lines that hold a record
  // (a trailing newline or a blank line is not one).
  let lineNumber = 0;
  for (const line of lines) {
    lineNumber++;
    if (!line.trim()) continue;
    report.lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw badInput(`line ${lineNumber}: not JSON`);
    }
    if (!sawHeader) {
      const header = headerSchema.safeParse(value);
      if (!header.success)
        throw badInput(`line ${lineNumber}: expected the ${EXPORT_FORMAT} header, e.g. from \`sm export\``);
      if (header.data.version > EXPORT_VERSION)
        throw badInput(
          `line ${lineNumber}: export version ${header.data.version} is newer than this version reads (${EXPORT_VERSION})`,
        );
      sawHeader = true;
      continue;
    }
    const record = recordSchema.safeParse(value);
    if (!record.success) throw badInput(`line ${lineNumber}: unknown record type`);
    batch.push({ n: lineNumber, record: record.data as unknown as ExportRecord });
    if (batch.length >= batchSize) await flush();
  }
  if (!sawHeader) throw badInput('empty file: expected the export header');
  if (batch.length > 0) await flush();
  return report;
}
