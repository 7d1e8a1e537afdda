// getContext with hybrid search: facts from earlier sessions relevant to the query or to the
// latest user turn (the current session excluded), access counting, and the token budget.
import { DEFAULT_SPACE } from '../server/core/space.ts';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { closeStore } from '../server/db/open.ts';
import { estimateTokens, getContext } from '../server/core/context.ts';
import { getMemory, remember } from '../server/core/memories.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';
import { testStore } from './helpers/store.ts';

async function setup() {
  const t = testStore({ extractor: { mode: 'heuristic' } });
  const runtime = createRuntime(t.store, {});
  const say = (sessionId: string, text: string, role: 'user' | 'assistant' = 'user') => ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role, name: role === 'user' ? 'Sam' : null, text });
  return { ...t, runtime, say };
}

describe('context with relevant facts', () => {
  it('brings facts from earlier sessions that match the latest user turn, never the current one', async () => {
    const { store, say, advanceDays } = await setup();
    const earlier = await say('s1', 'I love hiking in the Dolomites.');
    advanceDays(2);
    const current = await say('s2', 'I am planning a hiking trip for next summer.');
    const earlierFacts = earlier.extracted.map((e) => e.memory.id);
    const currentFacts = current.extracted.map((e) => e.memory.id);
    expect(earlierFacts.length).toBeGreaterThan(0);
    const context = getContext(store, DEFAULT_SPACE, { sessionId: 's2' });
    const relevant = context.relevant.map((m) => m.id);
    expect(relevant).toEqual(expect.arrayContaining(earlierFacts));
    expect(relevant.some((id) => currentFacts.includes(id))).toBe(false);
    expect(context.markdown).toContain('## From earlier conversations');
    expect(context.markdown).toMatch(/Dolomites/);
  });

  it('uses an explicit query over the latest turn, and counts what it hands out as accessed', async () => {
    const { store, say } = await setup();
    const tea = remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' }).memory;
    const bike = remember(store, DEFAULT_SPACE, { content: 'Sam rides a red bicycle to work' }).memory;
    await say('s9', 'What should I cook tonight?');
    const context = getContext(store, DEFAULT_SPACE, { sessionId: 's9', query: 'which tea does Sam like', k: 1 });
    // Both name Sam; the one about tea ranks first.
    expect(context.relevant.map((m) => m.id).slice(0, 2)).toEqual([tea.id, bike.id]);
    // Recorded just after the read, on the next tick, in one write for all of them.
    expect(getMemory(store, tea.id)!.accessCount).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(getMemory(store, tea.id)!.accessCount).toBe(1);
    expect(getMemory(store, tea.id)!.lastAccessedAt).not.toBeNull();
  });

  it('never waits for the write lock: a read while another process writes succeeds, its access is written later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-access-'));
    const { store } = testStore({}, join(dir, 'memory.db'));
    const tea = remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' }).memory;
    const other = new Database(join(dir, 'memory.db'));
    other.exec('begin immediate'); // e.g. an `sm` command importing into the same file
    try {
      const context = getContext(store, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
      expect(context.relevant.map((m) => m.id)).toEqual([tea.id]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(getMemory(store, tea.id)!.accessCount).toBe(0); // still queued: the lock is taken
    } finally {
      other.exec('commit');
      other.close();
    }
    await vi.waitFor(() => expect(getMemory(store, tea.id)!.accessCount).toBe(1), { timeout: 3_000 });
    // Accesses still queued when the store closes are written by closeStore.
    getContext(store, DEFAULT_SPACE, { sessionId: 's1', query: 'tea' });
    closeStore(store);
    const reopened = testStore({}, join(dir, 'memory.db')).store;
    expect(getMemory(reopened, tea.id)!.accessCount).toBe(2);
    closeStore(reopened);
  });

  it('keeps markdown within a token budget, relevant facts first', async () => {
    const { store } = await setup();
    for (let i = 0; i < 30; i++) remember(store, DEFAULT_SPACE, { content: `Sam collected vintage stamp number ${i} from a market in Lisbon`, importance: i / 30 });
    const full = getContext(store, DEFAULT_SPACE, { sessionId: 'new', query: 'stamp Lisbon' });
    const small = getContext(store, DEFAULT_SPACE, { sessionId: 'new', query: 'stamp Lisbon', maxTokens: 60 });
    expect(estimateTokens(full.markdown)).toBeGreaterThan(60);
    expect(estimateTokens(small.markdown)).toBeLessThanOrEqual(60);
    expect(small.markdown.startsWith('## From earlier conversations')).toBe(true);
    expect(small.relevant.length).toBe(full.relevant.length); // the budget trims the block, not the data
    expect(() => getContext(store, DEFAULT_SPACE, { sessionId: 'new', maxTokens: 0 })).toThrowError(/maxTokens/);
  });

  it('has no relevant section without a user turn or query', async () => {
    const { store } = await setup();
    remember(store, DEFAULT_SPACE, { content: 'Sam likes jazz' });
    const context = getContext(store, DEFAULT_SPACE, { sessionId: 'empty' });
    expect(context.relevant).toEqual([]);
    expect(context.markdown).not.toContain('From earlier conversations');
  });
});
