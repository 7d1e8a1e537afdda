// Import of JSON Lines written by export (export.ts): a record already present (same content and
// time) is mapped, not duplicated; ids are kept where they are free here.
import { and, eq, type InferSelectModel, type SQL } from 'drizzle-orm';
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
import { EXPORT_FORMAT, EXPORT_VERSION, RECORD_TYPES, type ExportRecord, type RecordType } from './export.ts';

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

/** What importing one record needs: the id maps so far and the user it lands in. */
type Importing = { store: Store; maps: IdMaps; target: Target };
/** Imports one record's row (its `type` taken off); true when it was added, false when already here. */
type Importer = (ctx: Importing, row: Record<string, unknown>) => Promise<boolean>;

async function importSession({ store, target }: Importing, row: Record<string, unknown>) {
  const r = { ...(row as InferSelectModel<typeof sessions>), userId: ownerOf(row, target) };
  await ensureUser(store, r.userId);
  const existing = await store.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, r.userId), eq(sessions.id, r.id)))
    .get();
  if (!existing) await store.db.insert(sessions).values(r).run();
  return !existing;
}

async function importTurn({ store, maps, target }: Importing, row: Record<string, unknown>) {
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
  return added;
}

async function importMemory({ store, maps, target }: Importing, row: Record<string, unknown>) {
  const r = { ...(row as InferSelectModel<typeof memories>), userId: ownerOf(row, target) };
  await ensureUser(store, r.userId);
  const identity = and(
    eq(memories.userId, r.userId),
    eq(memories.kind, r.kind),
    eq(memories.contentKey, r.contentKey),
    eq(memories.createdAt, r.createdAt),
  )!;
  return place(store, memories, maps.memory, r, identity);
}

async function importEntity({ store, maps, target }: Importing, row: Record<string, unknown>) {
  const { entityType, ...rest } = row as unknown as Omit<InferSelectModel<typeof entities>, 'type'> & {
    entityType: string;
  };
  const r: InferSelectModel<typeof entities> = { ...rest, type: entityType, userId: ownerOf(row, target) };
  const identity = and(eq(entities.userId, r.userId), eq(entities.nameKey, r.nameKey), eq(entities.type, r.type))!;
  return place(store, entities, maps.entity, r, identity);
}

async function importSource({ store, maps }: Importing, row: Record<string, unknown>) {
  const r = row as InferSelectModel<typeof memorySources>;
  const memoryId = maps.memory.get(r.memoryId);
  const turnId = maps.turn.get(r.turnId);
  if (memoryId === undefined || turnId === undefined)
    throw badInput(`source of memory ${r.memoryId} names a turn or memory missing from the file`);
  const inserted = await store.db
    .insert(memorySources)
    .values({ ...r, memoryId, turnId })
    .onConflictDoNothing()
    .run();
  return inserted.changes > 0;
}

async function importRelation({ store, maps }: Importing, row: Record<string, unknown>) {
  const r = row as InferSelectModel<typeof memoryRelations>;
  const fromId = maps.memory.get(r.fromId);
  const toId = maps.memory.get(r.toId);
  if (fromId === undefined || toId === undefined)
    throw badInput(`relation ${r.fromId} -> ${r.toId} names a memory missing from the file`);
  const inserted = await store.db
    .insert(memoryRelations)
    .values({ ...r, fromId, toId })
    .onConflictDoNothing()
    .run();
  return inserted.changes > 0;
}

async function importEvent({ store, maps, target }: Importing, row: Record<string, unknown>) {
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
  return !existing;
}

async function importMemoryEntity({ store, maps }: Importing, row: Record<string, unknown>) {
  const entityId = maps.entity.get((row as { entityId: number }).entityId);
  const memoryId = maps.memory.get((row as { memoryId: number }).memoryId);
  if (memoryId === undefined || entityId === undefined)
    throw badInput('a memory-entity link names a row missing from the file');
  return (await store.db.insert(memoryEntities).values({ memoryId, entityId }).onConflictDoNothing().run()).changes > 0;
}

async function importTurnEntity({ store, maps }: Importing, row: Record<string, unknown>) {
  const entityId = maps.entity.get((row as { entityId: number }).entityId);
  const turnId = maps.turn.get((row as { turnId: number }).turnId);
  if (turnId === undefined || entityId === undefined)
    throw badInput('a turn-entity link names a row missing from the file');
  return (await store.db.insert(turnEntities).values({ turnId, entityId }).onConflictDoNothing().run()).changes > 0;
}

const IMPORTERS: Record<RecordType, Importer> = {
  session: importSession,
  turn: importTurn,
  memory: importMemory,
  entity: importEntity,
  source: importSource,
  relation: importRelation,
  event: importEvent,
  memory_entity: importMemoryEntity,
  turn_entity: importTurnEntity,
};

async function importRecord(
  store: Store,
  record: ExportRecord,
  maps: IdMaps,
  report: ImportReport,
  target: Target,
): Promise<void> {
  const { type, ...row } = record;
  const added = await IMPORTERS[type]({ store, maps, target }, row);
  report[type][added ? 'added' : 'existing']++;
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
