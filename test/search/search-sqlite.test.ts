// Search and context on SQLite's own parts (not a conformance file: they reach into the SQLite
// file, its FTS5 tables and its lock). The behaviour every backend shares is checked in
// search-core.test.ts and search-context.test.ts; the Postgres lock in postgres-port.test.ts; vector
// KNN in search-vector-index.test.ts (the vec0 tables of earlier releases are SQLite's: their move is here).
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getContext } from '../../server/core/context/context.ts';
import { getMemory, remember } from '../../server/core/memory/memories.ts';
import { initVectors, knnIds } from '../../server/core/vectors/vectors.ts';
import type { Space } from '../../server/core/kernel/space.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { assembleContext } from '../../server/services/context.ts';
import { search } from '../../server/core/search/index.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { conversation } from '../helpers/conversation.ts';
import { testStore } from '../helpers/store.ts';

const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store);
});
const newPath = () => join(mkdtempSync(join(tmpdir(), 'sm-knn-')), 'db.sqlite');
const space = (userId: string): Space => ({ userId, agentId: null });

/** `n` turns of `userId` written straight into the file, with their ids. */
function addTurns(store: Store, userId: string, n: number): number[] {
  store.sqlite.prepare('insert or ignore into users (id, created_at) values (?, 0)').run(userId);
  store.sqlite
    .prepare("insert or ignore into sessions (user_id, id, first_seen_at, last_seen_at) values (?, 's', 0, 0)")
    .run(userId);
  const insert = store.sqlite.prepare(
    "insert into turns (user_id, session_id, role, text, at, created_at) values (?, 's', 'user', ?, 0, 0)",
  );
  return store.sqlite.transaction(() =>
    Array.from({ length: n }, (_, i) => Number(insert.run(userId, `turn ${i} of ${userId}`).lastInsertRowid)),
  )();
}

describe('search on SQLite', () => {
  it('works on a SQLite build without FTS5: no FTS table is ever read', async () => {
    const { store, say } = await conversation();
    // What openStore leaves on such a build: no FTS tables or triggers, features.fts false.
    for (const fts of ['turns_fts', 'memories_fts'])
      store.sqlite.exec(`drop trigger ${fts}_ai; drop trigger ${fts}_ad; drop trigger ${fts}_au; drop table ${fts};`);
    store.features.fts = false;
    const hiking = await say('s1', 'Caroline', 'I went hiking in the Alps with my sister last weekend.');
    await say('s1', 'Melanie', 'That sounds lovely! I mostly paint at home these days.');
    for (const kinds of [['turn'], ['fact'], ['fact', 'reflection', 'turn']] as const) {
      const { hits } = await search(store, DEFAULT_SPACE, {
        query: 'When did Caroline go hiking in the Alps?',
        kinds: [...kinds],
      });
      expect(hits.length, kinds.join()).toBeGreaterThan(0);
    }
    expect((await search(store, DEFAULT_SPACE, { query: 'hiking Alps', kinds: ['turn'] })).hits[0]!.id).toBe(hiking.id);
    expect(
      (await getContext(store, DEFAULT_SPACE, { sessionId: 's2', query: 'hiking in the Alps' })).relevant.map(
        (m) => m.content,
      ),
    ).toContain('Caroline went hiking in the Alps with their sister on the weekend of 27 December 2025');
  });

  it('never waits for the write lock: a read while another process writes succeeds, its access is written later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-access-'));
    const { store } = await testStore({}, join(dir, 'memory.db'));
    const tea = (await remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' })).memory;
    const other = new Database(join(dir, 'memory.db'));
    other.exec('begin immediate'); // e.g. an `sm` command importing into the same file
    try {
      const context = await assembleContext({ store, llm: null }, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
      expect(context.relevant.map((m) => m.id)).toEqual([tea.id]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await getMemory(store, tea.id))!.accessCount).toBe(0); // still queued: the lock is taken
    } finally {
      other.exec('commit');
      other.close();
    }
    await vi.waitFor(async () => expect((await getMemory(store, tea.id))!.accessCount).toBe(1), { timeout: 3_000 });
    // Accesses still queued when the store closes are written by closeStore.
    await assembleContext({ store, llm: null }, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
    await closeStore(store);
    const reopened = (await testStore({}, join(dir, 'memory.db'))).store;
    expect((await getMemory(reopened, tea.id))!.accessCount).toBe(2);
    await closeStore(reopened);
  });
  it('moves the partitioned vec0 table of the previous release into the plain table, each vector under its user', async () => {
    const path = newPath();
    const store = await openStore({ path, env: {} });
    stores.push(store);
    if (!store.features.vec)
      throw new Error('sqlite-vec must load here: the move from vec0 cannot be checked without it');
    const [a] = addTurns(store, 'alice', 1);
    const [b] = addTurns(store, 'bob', 1);
    store.sqlite.exec(
      'create virtual table vec_turns using vec0(user_id text partition key, embedding float[2] distance_metric=cosine)',
    );
    const insert = store.sqlite.prepare('insert into vec_turns(rowid, user_id, embedding) values (?, ?, ?)');
    insert.run(BigInt(a!), 'alice', Buffer.from(new Float32Array([1, 0]).buffer));
    insert.run(BigInt(b!), 'bob', Buffer.from(new Float32Array([0, 1]).buffer));
    // A vector whose turn is gone stays behind.
    insert.run(999n, 'alice', Buffer.from(new Float32Array([1, 1]).buffer));
    store.sqlite
      .prepare("insert into meta (key, value) values ('embedding', ?)")
      .run(JSON.stringify({ dimensions: 2, model: 'm' }));

    expect((await initVectors(store, { dimensions: 2, model: 'm' })).ready).toBe(true);
    expect(store.sqlite.prepare("select 1 from sqlite_master where name like 'vec_turns%'").get()).toBeUndefined();
    expect(store.sqlite.prepare('select id, user_id as userId from turn_vectors order by id').all()).toEqual([
      { id: a, userId: 'alice' },
      { id: b, userId: 'bob' },
    ]);
    expect(await knnIds(store, space('alice'), { table: 'turns', vector: new Float32Array([0, 1]), k: 5 })).toEqual([
      a,
    ]);
    expect(await knnIds(store, space('bob'), { table: 'turns', vector: new Float32Array([1, 0]), k: 5 })).toEqual([b]);
  });
});
