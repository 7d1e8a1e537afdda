// getContext in the core: one ranked list of facts and turns for the query or the latest user turn
// (the short-term window left out of the block) and the token budget; access counting through the context service.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it, vi } from 'vitest';
import { holdAccessWhile, noteAccess } from '../../server/core/memory/access.ts';
import { getContext } from '../../server/core/context/context.ts';
import { countTokens } from '../../server/core/text/token-count.ts';
import { getMemory, remember } from '../../server/core/memory/memories.ts';
import { assembleContext } from '../../server/services/context.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore } from '../helpers/store.ts';

async function setup() {
  const t = await testStore({ extractor: { mode: 'heuristic' } });
  const runtime = await createRuntime(t.store, {});
  const say = (sessionId: string, text: string, role: 'user' | 'assistant' = 'user') =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role, name: role === 'user' ? 'Sam' : null, text });
  return { ...t, runtime, say };
}

describe('context with relevant facts', () => {
  it("ranks for the latest user turn: earlier facts first, the window's own turns left out of the block", async () => {
    const { store, say, advanceDays } = await setup();
    const earlier = await say('s1', 'I love hiking in the Dolomites.');
    advanceDays(2);
    const current = await say('s2', 'I am planning a hiking trip for next summer.');
    const earlierFacts = earlier.extracted.map((e) => e.memory.id);
    expect(earlierFacts.length).toBeGreaterThan(0);
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 's2' });
    expect(context.query).toBe('I am planning a hiking trip for next summer.');
    const relevant = context.relevant.map((m) => m.id);
    expect(relevant.slice(0, earlierFacts.length).sort()).toEqual([...earlierFacts].sort());
    // The current turn is in the short-term window, so not in the block; its earlier counterpart is,
    // said once: as the preference that opens the block (About the user), not again as its turn.
    expect(context.items.some((i) => i.kind === 'turn' && i.id === current.turn.id)).toBe(false);
    expect(context.standing.about.items.map((i) => [i.kind, i.sourceTurnIds])).toEqual([
      ['preference', [earlier.turn.id]],
    ]);
    expect(context.items.some((i) => i.kind === 'turn' && i.id === earlier.turn.id)).toBe(false);
    expect(context.markdown).toMatch(/^## About the user\n- Sam loves hiking in the Dolomites/);
  });

  it('uses an explicit query over the latest turn, and counts what it hands out as accessed', async () => {
    const { store, runtime, say } = await setup();
    const tea = (await remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' })).memory;
    const bike = (await remember(store, DEFAULT_SPACE, { content: 'Sam rides a red bicycle to work' })).memory;
    await say('s9', 'What should I cook tonight?');
    const context = await assembleContext(runtime, DEFAULT_SPACE, {
      sessionId: 's9',
      query: 'which tea does Sam like',
    });
    // Both name Sam; the one about tea ranks first.
    expect(context.relevant.map((m) => m.id).slice(0, 2)).toEqual([tea.id, bike.id]);
    // Recorded just after the read, from the next tick, in one write for all of them (a write that
    // goes over the network to a Postgres server lands a little later; one that finds the write
    // lock taken is retried after 200 ms, then longer). Only SQLite's next read is sure to come
    // before that write: on Postgres it goes over the network too, and may land after it.
    if (store.sql.dialect === 'sqlite') expect((await getMemory(store, tea.id))!.accessCount).toBe(0);
    await vi.waitFor(async () => expect((await getMemory(store, tea.id))!.accessCount).toBe(1), {
      timeout: 10_000,
      interval: 5,
    });
    expect((await getMemory(store, tea.id))!.lastAccessedAt).not.toBeNull();
  });

  it('holds accesses while reads are under way elsewhere (read workers), then writes them together', async () => {
    const { store } = await setup();
    const tea = (await remember(store, DEFAULT_SPACE, { content: 'Sam drinks green tea every morning' })).memory;
    const bike = (await remember(store, DEFAULT_SPACE, { content: 'Sam rides a red bicycle to work' })).memory;
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    let busy = true;
    holdAccessWhile(store, () => busy, 300);
    noteAccess(store, [tea.id]);
    await tick();
    noteAccess(store, [tea.id, bike.id]);
    await tick();
    // Past the next tick, nothing yet: the first access waits for the others.
    expect((await getMemory(store, tea.id))!.accessCount).toBe(0);
    await vi.waitFor(async () => expect((await getMemory(store, tea.id))!.accessCount).toBe(2), {
      timeout: 10_000,
      interval: 5,
    });
    expect((await getMemory(store, bike.id))!.accessCount).toBe(1);
    // Nothing else under way: written on the next tick again.
    busy = false;
    noteAccess(store, [bike.id]);
    await vi.waitFor(async () => expect((await getMemory(store, bike.id))!.accessCount).toBe(2), {
      timeout: 250,
      interval: 5,
    });
    holdAccessWhile(store, null);
  });

  it('packs the block to the token budget, counted whole, and refuses a budget out of range', async () => {
    const { store } = await setup();
    for (let i = 0; i < 30; i++)
      await remember(store, DEFAULT_SPACE, {
        content: `Sam collected vintage stamp number ${i} from a market in Lisbon`,
        importance: i / 30,
      });
    const full = await getContext(store, DEFAULT_SPACE, {
      sessionId: 'new',
      query: 'stamp Lisbon',
      tokenBudget: 2_000,
    });
    const small = await getContext(store, DEFAULT_SPACE, { sessionId: 'new', query: 'stamp Lisbon', tokenBudget: 300 });
    expect(full.tokensUsed).toBe(countTokens(full.markdown));
    expect(full.items.length).toBe(30);
    expect(small.tokensUsed).toBe(countTokens(small.markdown));
    expect(small.tokensUsed).toBeLessThanOrEqual(300);
    expect(small.tokensUsed).toBeGreaterThanOrEqual(270);
    expect(small.items.length).toBeLessThan(30);
    expect(small.markdown.startsWith('## Facts\n- Sam collected vintage stamp')).toBe(true);
    expect(small.items.reduce((sum, i) => sum + i.tokens, 0)).toBeLessThanOrEqual(300);
    for (const [input, field] of [
      [{ tokenBudget: 49 }, 'tokenBudget'],
      [{ tokenBudget: 32_001 }, 'tokenBudget'],
      [{ maxTokens: 0 }, 'maxTokens'],
      [{ tokenBudget: 100, maxTokens: 200 }, 'maxTokens'],
    ] as const) {
      await expect(getContext(store, DEFAULT_SPACE, { sessionId: 'new', ...input })).rejects.toThrowError(
        new RegExp(`^${field}:`),
      );
    }
    // The deprecated alias still works, with the same meaning.
    expect(
      (await getContext(store, DEFAULT_SPACE, { sessionId: 'new', query: 'stamp Lisbon', maxTokens: 300 })).markdown,
    ).toBe(small.markdown);
  });

  it('without a user turn or query, builds the block from recent and salient memory', async () => {
    const { store, say } = await setup();
    await remember(store, DEFAULT_SPACE, { content: 'Sam likes jazz' });
    await say('s0', 'We talked about the weather.');
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 'empty' });
    expect(context.query).toBeNull();
    expect(context.markdown).toContain('- Sam likes jazz (stated ');
    expect(context.markdown).toMatch(/\[\d{4}-\d{2}-\d{2}\] Sam: We talked about the weather\./);
    // An empty query asks for the same, even in a session with a user turn.
    expect((await getContext(store, DEFAULT_SPACE, { sessionId: 's0', query: '  ' })).query).toBeNull();
  });
});
