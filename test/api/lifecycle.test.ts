// Sessions, consolidation, decay, reflection and the scheduler, over a real SQLite store.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain } from '../../server/core/memory/explain.ts';
import { getContext } from '../../server/core/context/context.ts';
import { runDecay } from '../../server/core/memory/decay.ts';
import { jobCounts } from '../../server/core/jobs/jobs.ts';
import { getMemory, remember } from '../../server/core/memory/memories.ts';
import { confirmMemory } from '../../server/core/memory/memory-edits.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { getSession } from '../../server/core/turns/sessions.ts';
import { onChange } from '../../server/core/kernel/store.ts';
import { consolidateSession } from '../../server/services/consolidate.ts';
import { assembleContext } from '../../server/services/context.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { maintenanceSchedule, runMaintenance } from '../../server/services/maintenance.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startScheduler } from '../../server/jobs/scheduler.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { testStore } from '../helpers/store.ts';

const setup = async (config: Record<string, unknown> = {}) => {
  // NER off: these tests count consolidation jobs (NER queues its own per turn; tested apart).
  const t = await testStore({ extractor: { mode: 'heuristic' }, ner: { enabled: false }, ...config });
  return { ...t, runtime: await createRuntime(t.store, {}) };
};

describe('sessions and consolidation', () => {
  it('queues earlier sessions when a new one starts, consolidates them once, and reports what it did', async () => {
    const { runtime, store, advanceDays } = await setup();
    const events: string[] = [];
    onChange(store, (e) => e.type === 'consolidation' && events.push(`${e.status}:${e.sessionId}`));
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text: 'I like JRPGs' });
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'assistant', text: 'Nice! Which one?' });
    // Stored without extraction: consolidation is what turns it into memory.
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      text: 'My name is Alex and I live in Porto',
      autoExtract: false,
    });
    expect((await jobCounts(store)).pending).toBe(0);
    advanceDays(1);
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', text: 'Hello again' });
    expect((await jobCounts(store)).pending).toBe(1);

    const report = await drainJobs(store, jobHandlers(runtime));
    expect(report).toMatchObject({ ran: 1, done: 1 });
    const session = (await getSession(store, DEFAULT_SPACE, 's1'))!;
    expect(session.consolidatedAt).not.toBeNull();
    expect(session.turnCount).toBe(3);
    expect((await getSession(store, DEFAULT_SPACE, 's2'))!.consolidatedAt).toBeNull();
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content).sort()).toEqual([
      'User likes JRPGs',
      'User lives in Porto',
      "User's name is Alex",
    ]);
    expect(events).toEqual(['STARTED:s1', 'COMPLETED:s1']);

    const before = JSON.stringify((await listMemories(store, DEFAULT_SPACE, { limit: 100 })).rows);
    const again = await consolidateSession(runtime, DEFAULT_SPACE, 's1');
    expect(again).toMatchObject({ status: 'skipped', detail: 'already consolidated' });
    expect(JSON.stringify((await listMemories(store, DEFAULT_SPACE, { limit: 100 })).rows)).toBe(before);
  });

  it('reads turns in pages of 30 and counts facts already known from a turn as unchanged', async () => {
    const { runtime, store } = await setup();
    for (let i = 0; i < 65; i++)
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's1',
        role: 'user',
        text: `I like hobby number ${i}`,
        at: 1000 + i,
      });
    const report = await consolidateSession(runtime, DEFAULT_SPACE, 's1');
    expect(report).toMatchObject({
      status: 'completed',
      detail: 'heuristic',
      turns: 65,
      pages: 3,
      created: 0,
      merged: 0,
      unchanged: 65,
    });
    expect((await listMemories(store, DEFAULT_SPACE, { limit: 100 })).rows.every((m) => m.hits === 0)).toBe(true);
  });

  it('reopens a consolidated session that gets a new turn', async () => {
    const { runtime, store } = await setup();
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text: 'hi' });
    await consolidateSession(runtime, DEFAULT_SPACE, 's1');
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      text: 'I moved to Lisbon',
      autoExtract: false,
    });
    expect((await getSession(store, DEFAULT_SPACE, 's1'))!.consolidatedAt).toBeNull();
    expect((await consolidateSession(runtime, DEFAULT_SPACE, 's1')).created).toBe(1);
  });

  it('never brings back a superseded fact when an old session is consolidated late', async () => {
    const { runtime, store, advanceDays } = await setup();
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', name: 'Ana', text: 'I live in Berlin' });
    advanceDays(1);
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', name: 'Ana', text: 'I moved to Lisbon' });
    await drainJobs(store, jobHandlers(runtime));
    expect((await getSession(store, DEFAULT_SPACE, 's1'))!.consolidatedAt).not.toBeNull();
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['Ana moved to Lisbon']);
  });

  it('keeps older news as history instead of letting it replace a newer fact', async () => {
    const { runtime, store } = await setup();
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'I moved to Lisbon',
      at: Date.UTC(2025, 5, 1),
    });
    const late = await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's0',
      role: 'user',
      name: 'Ana',
      text: 'I live in Berlin',
      at: Date.UTC(2024, 0, 1),
    });
    expect(late.extracted.map((e) => [e.action, e.memory.content, e.memory.status])).toEqual([
      ['superseded', 'Ana lives in Berlin', 'archived'],
    ]);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['Ana moved to Lisbon']);
  });

  it('rejects an unknown session', async () => {
    const { runtime } = await setup();
    await expect(consolidateSession(runtime, DEFAULT_SPACE, 'nope')).rejects.toThrow(/session "nope" not found/);
  });

  describe('with an LLM', () => {
    let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
    beforeAll(async () => (llm = await startOpenAiServer()));
    afterAll(() => llm.close());

    it('extracts each page with the model, links facts to their turns, and falls back per page', async () => {
      const t = await testStore({
        extractor: { mode: 'heuristic' },
        llm: { endpoint: llm.url, model: 'm', timeout_s: 1 },
      });
      const runtime = await createRuntime(t.store, {});
      const turns = [];
      for (let i = 0; i < 31; i++)
        turns.push(
          (
            await ingestTurn(runtime, DEFAULT_SPACE, {
              sessionId: 's1',
              role: 'user',
              name: 'Ana',
              text: `turn ${i}`,
              at: 1000 + i,
            })
          ).turn,
        );
      llm.script(
        {
          reply: JSON.stringify([
            { action: 'create', turnId: turns[3]!.id, content: 'Ana keeps bees', tags: ['hobby'] },
          ]),
        },
        { status: 500 },
      );
      const before = llm.requests.length;
      const report = await consolidateSession(runtime, DEFAULT_SPACE, 's1');
      expect(llm.requests.length - before).toBe(2);
      expect(llm.requests[before]!.body.messages[1].content).toContain(`[turn ${turns[0]!.id}] Ana: turn 0`);
      expect(report).toMatchObject({ pages: 2, turns: 31, created: 1, detail: 'llm+heuristic' });
      const bees = (await listMemories(t.store, DEFAULT_SPACE, { q: 'bees' })).rows[0]!;
      expect((await explain(t.store, DEFAULT_SPACE, bees.id)).sources).toEqual([
        { turnId: turns[3]!.id, reason: 'extracted', rule: 'llm' },
      ]);
    });
  });
});

describe('decay', () => {
  it('archives a fact never accessed once it falls under the threshold; a confirmed fact stays', async () => {
    const { store, advanceDays } = await setup();
    const idle = (await remember(store, DEFAULT_SPACE, { content: 'User had a cold' })).memory;
    const confirmed = (await remember(store, DEFAULT_SPACE, { content: 'User is allergic to peanuts' })).memory;
    await confirmMemory(store, DEFAULT_SPACE, confirmed.id);
    advanceDays(29);
    expect((await runDecay(store)).archived).toBe(0);
    expect((await getMemory(store, idle.id))!.confidence).toBeCloseTo(Math.exp(-0.1 * 29), 9);
    advanceDays(2);
    const report = await runDecay(store);
    expect(report.archived).toBe(1);
    expect((await getMemory(store, idle.id))!.status).toBe('archived');
    expect((await explain(store, DEFAULT_SPACE, idle.id)).decisions.map((d) => d.action).slice(0, 2)).toEqual([
      'archived',
      'decayed',
    ]);
    expect(await getMemory(store, confirmed.id)).toMatchObject({ status: 'active', confidence: 1 });
  });

  it('depends on the time since access, not on how often it runs', async () => {
    const nightly = await setup();
    const once = await setup();
    const a = (await remember(nightly.store, DEFAULT_SPACE, { content: 'User likes tea' })).memory;
    const b = (await remember(once.store, DEFAULT_SPACE, { content: 'User likes tea' })).memory;
    for (let day = 0; day < 20; day++) {
      nightly.advanceDays(1);
      await runDecay(nightly.store);
    }
    once.advanceDays(20);
    await runDecay(once.store);
    expect((await getMemory(nightly.store, a.id))!.confidence).toBeCloseTo(
      (await getMemory(once.store, b.id))!.confidence,
      12,
    );
    expect((await getMemory(once.store, b.id))!.confidence).toBeCloseTo(Math.exp(-0.1 * 20), 12);
  });

  it('keeps a fact that is retrieved every few days', async () => {
    const { store, advanceDays } = await setup();
    const used = (await remember(store, DEFAULT_SPACE, { content: 'User lives in Porto' })).memory;
    for (let day = 0; day < 90; day += 3) {
      advanceDays(3);
      await assembleContext({ store, llm: null }, DEFAULT_SPACE, { sessionId: 'any' }); // retrieval counts as access, written on the next tick
      await new Promise((resolve) => setImmediate(resolve));
      await runDecay(store);
    }
    expect(await getMemory(store, used.id)).toMatchObject({ status: 'active' });
    expect((await getMemory(store, used.id))!.confidence).toBeGreaterThan(0.7);
  });
});

describe('reflection', () => {
  it('needs 3 new facts, writes a template reflection linked to them, at most once per 6 days', async () => {
    const { runtime, store, advanceDays } = await setup();
    // Plain facts: where Ana lives or what she likes is now a protected profile or preference
    // memory (docs/memory-kinds.md), which reflection does not count as a new fact.
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'My car is a red Fiat',
    });
    const skipped = await runMaintenance(runtime, 'reflect');
    expect(skipped).toMatchObject({
      task: 'reflect',
      reflection: { created: false, reason: expect.stringContaining('1 new facts') },
    });
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'My car is a blue Toyota',
    });
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'I adopted a dog and I bought a new bike',
    });
    const done = await runMaintenance(runtime, 'reflect');
    if (done.task !== 'reflect') throw new Error('wrong task');
    const reflection = done.reflection.reflection!;
    expect(done.reflection).toMatchObject({ created: true, path: 'template' });
    expect(reflection).toMatchObject({ kind: 'reflection', layer: 'long', decayRate: 0, tags: ['weekly'] });
    expect(reflection.content).toContain('Ana (3)');
    expect(reflection.content).toContain('"Ana\'s car is a blue Toyota" replaced "Ana\'s car is a red Fiat"');
    expect((await explain(store, DEFAULT_SPACE, reflection.id)).derivedFrom).toHaveLength(3);
    expect((await getContext(store, DEFAULT_SPACE, { sessionId: 's2' })).markdown).toContain('## Weekly insight');

    advanceDays(5);
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'My boss is called Tom',
    });
    expect(await reflectionReason(runtime)).toMatch(/5\.0 days old \(< 6\)/);
    advanceDays(1.5);
    const next = await runMaintenance(runtime, 'reflect');
    expect(next.task === 'reflect' && next.reflection.created).toBe(true);
  });
});

async function reflectionReason(runtime: Awaited<ReturnType<typeof setup>>['runtime']) {
  const report = await runMaintenance(runtime, 'reflect');
  return report.task === 'reflect' ? report.reflection.reason : '';
}

describe('scheduler', () => {
  it('plans the five maintenance tasks at their default times and runs a due task', async () => {
    const { runtime, store } = await setup({ schedule: { timezone: 'UTC' } });
    const scheduler = startScheduler(maintenanceSchedule(runtime));
    const next = scheduler.next();
    expect(next.enrich!.getUTCHours()).toBe(2);
    expect(next.consolidate!.getUTCHours()).toBe(3);
    expect(next.decay!.getUTCHours()).toBe(4);
    expect([next.optimize!.getUTCHours(), next.optimize!.getUTCMinutes()]).toEqual([4, 30]);
    expect(next.reflect!.getUTCDay()).toBe(0);
    expect(next.reflect!.getUTCHours()).toBe(3);
    scheduler.stop();

    // Every second: the decay task archives a fact that is long past the threshold.
    const old = (await remember(store, DEFAULT_SPACE, { content: 'User once had a cold' })).memory;
    await store.sql.run('update memories set last_seen_at = 0 where id = ?', [old.id]);
    const fast = startScheduler(
      maintenanceSchedule({
        ...runtime,
        store: { ...store, config: { ...store.config, schedule: { ...store.config.schedule, decay: '* * * * * *' } } },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    fast.stop();
    expect((await getMemory(store, old.id))!.status).toBe('archived');
  });

  it('rejects an invalid cron expression or time zone in config', async () => {
    await expect(testStore({ schedule: { decay: 'every night' } })).rejects.toThrowError(/schedule\.decay.*cron/);
    await expect(testStore({ schedule: { timezone: 'Mars/Olympus' } })).rejects.toThrowError(/schedule\.timezone/);
  });
});

describe('context', () => {
  it('writes a memory once in the markdown, in its most important section', async () => {
    const { runtime, store } = await setup();
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Ana',
      text: 'My name is Ana and I like pottery',
    });
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 's2', query: 'what does Ana like' });
    expect(context.relevant.map((m) => m.content)).toContain('Ana likes pottery');
    expect(context.midTerm.map((m) => m.content)).toContain('Ana likes pottery');
    expect(context.markdown.match(/Ana likes pottery/g)).toHaveLength(1);
    // "likes" is a preference: standing memory, whose section ("About the user") opens the block.
    expect(context.markdown).toMatch(/^## About the user\n(- .*\n)*- Ana likes pottery \(stated /);
  });
});
