// What the conformance files check on every backend, here for SQLite's own storage: the FTS5
// index tables by name and sqlite-vec's legacy vec0 tables. Moved out of those files whole (the
// backend-neutral version stays there).
import { describe, expect, it } from 'vitest';
import { entities, memoryEntities, memoryEvents, memoryRelations, memorySources, turnEntities } from '../drizzle/schema.ts';
import { forget } from '../server/core/forget.ts';
import { getMemory, linkSource, remember } from '../server/core/memories.ts';
import { listMemories } from '../server/core/memory-list.ts';
import { DEFAULT_SPACE } from '../server/core/space.ts';
import { addTurn } from '../server/core/turns.ts';
import { openStore } from '../server/db/open.ts';
import { T0 } from './helpers/store.ts';

/** Always SQLite, whatever SM_TEST_BACKEND says. */
async function testStore(config: Record<string, unknown> = {}) {
  const store = await openStore({ path: ':memory:', clock: { now: () => T0 }, env: {}, config });
  return { store };
}

const ftsRows = (store: Awaited<ReturnType<typeof testStore>>['store'], table: string, word: string) =>
  store.sqlite.prepare(`select rowid from ${table} where ${table} match ?`).all(`"${word}"`).map((r: any) => r.rowid);

describe('forget (core-memories)', () => {
  it('removes every trace: row, FTS entry, vector, links, junction rows, text-bearing log entries', async () => {
    // Links are made by hand below, so that every kind of row is there to be removed.
    const { store } = await testStore({ ner: { enabled: false } });
    store.sqlite.exec('create virtual table vec_memories using vec0(embedding float[2])');
    const { turn } = await addTurn(store, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text: 'My email is alex@example.com' });
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User email is alex@example.com', tags: ['pii'] });
    const other = (await remember(store, DEFAULT_SPACE, { content: 'User likes tea' })).memory;
    await linkSource(store, memory.id, { turnId: turn.id, reason: 'extracted', rule: 'identity.email' });
    await store.db.insert(memoryRelations).values({ fromId: other.id, toId: memory.id, kind: 'derived_from', at: 0 }).run();
    const entity = await store.db.insert(entities).values({ name: 'alex@example.com', nameKey: 'alex@example.com', type: 'email', mentionCount: 2, createdAt: 0, updatedAt: 0 }).returning().get();
    await store.db.insert(memoryEntities).values({ memoryId: memory.id, entityId: entity.id }).run();
    await store.db.insert(turnEntities).values({ turnId: turn.id, entityId: entity.id }).run();
    store.sqlite.prepare('insert into vec_memories(rowid, embedding) values (?, ?)').run(BigInt(memory.id), new Float32Array([1, 0]));

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
