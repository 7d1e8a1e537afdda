// What the conformance files check on every backend, here for SQLite's own storage: the FTS5
// index tables by name, sqlite-vec's legacy vec0 tables, query plans, and files of earlier
// releases. Moved out of those files whole (a backend-neutral version stays there where one fits).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  entities,
  memoryEntities,
  memoryEvents,
  memoryRelations,
  memorySources,
  turnEntities,
} from '../../drizzle/schema.ts';
import { STANDING_ROWS } from '../../server/core/context/context-standing.ts';
import { STANDING_SOURCE_ROWS } from '../../server/core/search/standing-signal.ts';
import { forget } from '../../server/core/memory/forget.ts';
import { getMemory, linkSource, remember } from '../../server/core/memory/memories.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { backfillTurnDates } from '../../server/core/turns/turn-dates.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { forgetUser, listUsers } from '../../server/core/users/users.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { T0 } from '../helpers/store.ts';
import { ALICE, BOB, twoUsers } from '../helpers/two-users.ts';

const DAY = 86_400_000;

/** Always SQLite, whatever SM_TEST_BACKEND says. */
async function testStore(config: Record<string, unknown> = {}, path = ':memory:') {
  let now = T0;
  const store = await openStore({ path, clock: { now: () => now }, env: {}, config });
  return { store, setNow: (at: number) => (now = at) };
}

const ftsRows = (store: Awaited<ReturnType<typeof testStore>>['store'], table: string, word: string) =>
  store.sqlite
    .prepare(`select rowid from ${table} where ${table} match ?`)
    .all(`"${word}"`)
    .map((r: any) => r.rowid);

describe('forget (core-memories)', () => {
  it('removes every trace: row, FTS entry, vector, links, junction rows, text-bearing log entries', async () => {
    // Links are made by hand below, so that every kind of row is there to be removed.
    const { store } = await testStore({ ner: { enabled: false } });
    store.sqlite.exec('create virtual table vec_memories using vec0(embedding float[2])');
    const { turn } = await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      text: 'My email is alex@example.com',
    });
    const { memory } = await remember(store, DEFAULT_SPACE, {
      content: 'User email is alex@example.com',
      tags: ['pii'],
    });
    const other = (await remember(store, DEFAULT_SPACE, { content: 'User likes tea' })).memory;
    await linkSource(store, memory.id, { turnId: turn.id, reason: 'extracted', rule: 'identity.email' });
    await store.db
      .insert(memoryRelations)
      .values({ fromId: other.id, toId: memory.id, kind: 'derived_from', at: 0 })
      .run();
    const entity = await store.db
      .insert(entities)
      .values({
        name: 'alex@example.com',
        nameKey: 'alex@example.com',
        type: 'email',
        mentionCount: 2,
        createdAt: 0,
        updatedAt: 0,
      })
      .returning()
      .get();
    await store.db.insert(memoryEntities).values({ memoryId: memory.id, entityId: entity.id }).run();
    await store.db.insert(turnEntities).values({ turnId: turn.id, entityId: entity.id }).run();
    store.sqlite
      .prepare('insert into vec_memories(rowid, embedding) values (?, ?)')
      .run(BigInt(memory.id), new Float32Array([1, 0]));

    const result = await forget(store, DEFAULT_SPACE, { text: 'alex@example.com' });
    expect(result).toEqual({ memoryIds: [memory.id], turnIds: [turn.id] });
    expect(await getMemory(store, memory.id)).toBeUndefined();
    expect((await listMemories(store, DEFAULT_SPACE, { q: 'alex' })).total).toBe(0);
    expect((await listMemories(store, DEFAULT_SPACE, { q: 'alex', status: 'archived' })).total).toBe(0);
    expect(ftsRows(store, 'memories_fts', 'alex')).toEqual([]);
    expect(ftsRows(store, 'turns_fts', 'alex')).toEqual([]);
    expect(store.sqlite.prepare('select count(*) n from vec_memories').get()).toEqual({ n: 0 });
    expect(await store.db.select().from(memorySources).all()).toEqual([]);
    expect(await store.db.select().from(memoryRelations).all()).toEqual([]);
    expect(await store.db.select().from(memoryEntities).all()).toEqual([]);
    expect(await store.db.select().from(turnEntities).all()).toEqual([]);
    // Nothing mentions it any more: the forgotten name leaves the entity registry too.
    expect(await store.db.select().from(entities).all()).toEqual([]);
    const log = (await store.db.select().from(memoryEvents).all()).filter((e) => e.memoryId === memory.id);
    expect(log.map((e) => e.action)).toEqual(['deleted']);
    expect(JSON.stringify(log)).not.toContain('alex');
    expect(await getMemory(store, other.id)).toBeDefined();
  });
});

describe('standing sections on disk', () => {
  // Ordered by the index itself: no sort of the rows it reads.
  it.each([
    ["a context block reads only the user's standing and pinned memories, in order,", STANDING_ROWS],
    ["a turn search reads the user's standing memories' source turns", STANDING_SOURCE_ROWS],
  ])('%s off the memories_standing index', async (_, statement) => {
    const { store } = await testStore();
    const plan = store.sqlite.prepare(`explain query plan ${statement}`).all('default', null, null) as {
      detail: string;
    }[];
    const details = plan.map((p) => p.detail).join(' ');
    expect(details).toMatch(/USING (?:COVERING )?INDEX memories_standing/);
    expect(details).not.toMatch(/TEMP B-TREE/);
    await closeStore(store);
  });
});

describe('turn dates on disk (time-phrases)', () => {
  it('a date window is read by the (user, date_from) index', async () => {
    const { store } = await testStore();
    const plan = store.sqlite
      .prepare(
        'explain query plan select turn_id from turn_dates where user_id = ? and date_from between ? and ? and date_to >= ?',
      )
      .all('default', 0, 1, 0) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING (?:COVERING )?INDEX turn_dates_user_from/);
    await closeStore(store);
  });

  it('an upgraded file gets the dates of its earlier turns on open, in batches, resuming after a stop', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-dates-')), 'release.db');
    copyFileSync(fileURLToPath(new URL('../fixtures/release-0.1.db', import.meta.url)), path);
    // Add old-style turns that name dates, written as the previous release would (no turn_dates table yet).
    const old = new Database(path);
    const insert = old.prepare(
      "insert into turns (session_id, role, text, at, created_at) values ('trip-planning', 'user', ?, ?, ?)",
    );
    for (let i = 0; i < 25; i++) insert.run(`Turn ${i}: I went to the market yesterday`, T0 + i * DAY, T0 + i * DAY);
    const turnCount = old.prepare('select count(*) from turns').pluck().get() as number;
    old.close();

    // Opening runs the migrations (which record which turns are left), then the backfill.
    const store = await openStore({ path, env: {}, config: { extractor: { timezone: 'UTC' } } });
    const after = store.sqlite.prepare('select count(*) from turn_dates').pluck().get() as number;
    expect(after).toBeGreaterThanOrEqual(25);
    expect(store.sqlite.prepare("select value from meta where key = 'turn_dates_backfill'").get()).toBeUndefined();
    expect(store.sqlite.prepare('select count(*) from turns').pluck().get()).toBe(turnCount); // nothing lost
    // Each market turn is dated the day before it was said.
    const rows = store.sqlite
      .prepare("select t.at, d.date_from from turn_dates d join turns t on t.id = d.turn_id where t.text like 'Turn %'")
      .all() as { at: number; date_from: number }[];
    expect(rows).toHaveLength(25);
    for (const row of rows) expect(row.date_from).toBe(Math.floor(row.at / DAY) * DAY - DAY);
    // Running it again finds nothing left to do.
    expect(await backfillTurnDates(store)).toEqual({ turns: 0, dates: 0 });
    await closeStore(store);
  });
});

describe('forgetUser (spaces)', () => {
  it('leaves no text of the user anywhere in the file: every table, FTS shadow tables, vectors', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-forget-')), 'm.db');
    const { store, say } = await twoUsers({}, path, testStore);
    const marker = 'Xylophonist';
    await say(BOB, 's1', `My name is Zed ${marker} and I live in Quuxville`, `Zed ${marker}`);
    await say(BOB, 's2', `I love ${marker} music`, `Zed ${marker}`);
    await remember(store, BOB, { content: `${marker} is my password hint`, tags: [marker.toLowerCase()] });
    await say(ALICE, 's1', 'I love tea', 'Alice');
    // A vector row too, when sqlite-vec is here: the partitioned table forgetUser must clear.
    if (store.features.vec) {
      store.sqlite.exec(
        'create virtual table vec_turns using vec0(user_id text partition key, embedding float[2] distance_metric=cosine)',
      );
      store.sqlite
        .prepare('insert into vec_turns(rowid, user_id, embedding) values (?, ?, ?)')
        .run(1n, 'bob', Buffer.from(new Float32Array([1, 0]).buffer));
    }
    const result = await forgetUser(store, { userId: 'bob', vacuum: true });
    expect(result).toMatchObject({ userId: 'bob', turns: 2, sessions: 2, vacuumed: true });
    expect(result.memories).toBeGreaterThanOrEqual(2);
    if (store.features.vec) expect(result.vectors).toBe(1);
    expect((await listUsers(store)).rows.map((u) => u.id)).toEqual(['alice']);
    expect((await listMemories(store, ALICE)).total).toBe(1);
    await closeStore(store);

    // Every table of the file, virtual tables' shadow tables included, scanned cell by cell.
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[];
    expect(tables).toEqual(expect.arrayContaining(['turns_fts_data', 'memories_fts_data']));
    const found: string[] = [];
    for (const table of tables) {
      let rows: unknown[][];
      try {
        rows = db.prepare(`select * from "${table}"`).raw().all() as unknown[][];
      } catch {
        continue; // a virtual table whose module is not loaded here: its shadow tables are scanned
      }
      for (const row of rows) {
        for (const cell of row) {
          const text = Buffer.isBuffer(cell) ? cell.toString('latin1') : String(cell);
          if (text.toLowerCase().includes(marker.toLowerCase()) || text.includes('Quuxville'))
            found.push(`${table}: ${text.slice(0, 80)}`);
          if (/\bbob\b/.test(text) && table !== 'sqlite_sequence') found.push(`${table}: ${text.slice(0, 80)}`);
        }
      }
    }
    db.close();
    expect(found).toEqual([]);
  });
});
