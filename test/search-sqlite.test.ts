// Search and context on SQLite's own parts (not a conformance file: they reach into the SQLite
// file, its FTS5 tables and its lock). The behaviour every backend shares is checked in
// search-core.test.ts and search-context.test.ts; the Postgres lock in postgres-port.test.ts.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { getContext } from '../server/core/context.ts';
import { getMemory, remember } from '../server/core/memories.ts';
import { closeStore } from '../server/db/open.ts';
import { search } from '../server/core/search/index.ts';
import { DEFAULT_SPACE } from '../server/core/space.ts';
import { conversation } from './helpers/conversation.ts';
import { testStore } from './helpers/store.ts';

describe('search on SQLite', () => {
  it('works on a SQLite build without FTS5: no FTS table is ever read', async () => {
    const { store, say } = await conversation();
    // What openStore leaves on such a build: no FTS tables or triggers, features.fts false.
    for (const fts of ['turns_fts', 'memories_fts']) store.sqlite.exec(`drop trigger ${fts}_ai; drop trigger ${fts}_ad; drop trigger ${fts}_au; drop table ${fts};`);
    store.features.fts = false;
    const hiking = await say('s1', 'Caroline', 'I went hiking in the Alps with my sister last weekend.');
    await say('s1', 'Melanie', 'That sounds lovely! I mostly paint at home these days.');
    for (const kinds of [['turn'], ['fact'], ['fact', 'reflection', 'turn']] as const) {
      const { hits } = await search(store, DEFAULT_SPACE, { query: 'When did Caroline go hiking in the Alps?', kinds: [...kinds] });
      expect(hits.length, kinds.join()).toBeGreaterThan(0);
    }
    expect((await search(store, DEFAULT_SPACE, { query: 'hiking Alps', kinds: ['turn'] })).hits[0]!.id).toBe(hiking.id);
    expect((await getContext(store, DEFAULT_SPACE, { sessionId: 's2', query: 'hiking in the Alps' })).relevant.map((m) => m.content)).toContain('Caroline went hiking in the Alps with their sister on the weekend of 27 December 2025');
  });

  it('never waits for the write lock: a read while another process writes succeeds, its access is written later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-access-'));
    const { store } = await testStore({}, join(dir, 'memory.db'));
    const tea = (await remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' })).memory;
    const other = new Database(join(dir, 'memory.db'));
    other.exec('begin immediate'); // e.g. an `sm` command importing into the same file
    try {
      const context = await getContext(store, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
      expect(context.relevant.map((m) => m.id)).toEqual([tea.id]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await getMemory(store, tea.id))!.accessCount).toBe(0); // still queued: the lock is taken
    } finally {
      other.exec('commit');
      other.close();
    }
    await vi.waitFor(async () => expect((await getMemory(store, tea.id))!.accessCount).toBe(1), { timeout: 3_000 });
    // Accesses still queued when the store closes are written by closeStore.
    await getContext(store, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
    await closeStore(store);
    const reopened = (await testStore({}, join(dir, 'memory.db'))).store;
    expect((await getMemory(reopened, tea.id))!.accessCount).toBe(2);
    await closeStore(reopened);
  });
});
