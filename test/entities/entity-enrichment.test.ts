// Entity enrichment and the LLM in the accurate strategy,
// through the real openai client against a local OpenAI-compatible server.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entitiesForMemories, entitiesForTurns, findEntity } from '../../server/core/reads/entity-reads.ts';
import { remember } from '../../server/core/memory/memories.ts';
import { runEnrichment } from '../../server/core/entities/ner/enrichment.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { enrichEntities } from '../../server/services/ner.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { countRows, testStore } from '../helpers/store.ts';

const names = (rows: { name: string }[] | undefined) => (rows ?? []).map((r) => r.name).sort();

describe('runEnrichment', () => {
  it('re-extracts memories and turns with few entities and no stamp, links them, stamps them, once', async () => {
    // NER off while ingesting: the turns arrive with no entities and no accurate job.
    const t = await testStore({ extractor: { mode: 'heuristic' }, ner: { enabled: false } });
    const runtime = await createRuntime(t.store, {});
    const turn = await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's',
      role: 'user',
      name: 'Sam',
      text: 'Dinner with Caroline in Lisbon',
    });
    const busy = await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's',
      role: 'user',
      text: '@a @b @c were there',
    });
    const fact = (await remember(t.store, DEFAULT_SPACE, { content: 'Alice Johnson works at Google' })).memory;
    t.store.config.ner.enabled = true;
    // Three links: over the default threshold (2), so enrichment leaves it alone.
    const x = await t.store.sql.pluck(
      "insert into entities (name, name_key, type, aliases, mention_count, created_at, updated_at) values ('x', 'x', 'other', '[]', 3, 0, 0) returning id",
    );
    for (const memoryId of [fact.id])
      await t.store.sql.run('insert into memory_entities (memory_id, entity_id) values (?, ?)', [memoryId, Number(x)]);
    for (const key of ['a', 'b', 'c']) {
      const id = await t.store.sql.pluck(
        "insert into entities (name, name_key, type, aliases, mention_count, created_at, updated_at) values (?, ?, 'mention', '[]', 1, 0, 0) returning id",
        [key, key],
      );
      await t.store.sql.run('insert into turn_entities (turn_id, entity_id) values (?, ?)', [busy.turn.id, Number(id)]);
    }

    const report = await runEnrichment(t.store);
    // New links only: the memory's existing link to "x" does not count again.
    expect(report).toMatchObject({
      skipped: null,
      memories: { candidates: 1, enriched: 1, links: 2 },
      turns: { candidates: 1, enriched: 1, links: 3 },
      failures: [],
    });
    expect(names((await entitiesForMemories(t.store, [fact.id])).get(fact.id))).toEqual([
      'Alice Johnson',
      'Google',
      'x',
    ]);
    expect(names((await entitiesForTurns(t.store, [turn.turn.id])).get(turn.turn.id))).toEqual([
      'Caroline',
      'Lisbon',
      'Sam',
    ]);
    const stamps = await t.store.sql.all('select id, enriched_at as e from turns order by id');
    expect(stamps).toEqual([
      { id: turn.turn.id, e: t.store.clock.now() },
      { id: busy.turn.id, e: null },
    ]);

    const again = await runEnrichment(t.store);
    expect(again).toMatchObject({ memories: { candidates: 0 }, turns: { candidates: 0 } });
    // A higher threshold, given on demand, reaches the busy turn.
    // Its mentions were linked already: nothing new, but it is stamped now.
    expect((await runEnrichment(t.store, {}, { maxEntities: 3 })).turns).toEqual({
      candidates: 1,
      enriched: 1,
      links: 0,
    });
    expect((await runEnrichment(t.store, {}, { maxEntities: 3 })).turns.candidates).toBe(0);
  });

  it('respects ner.enrich_limit and is skipped, with the reason, when no accurate provider is enabled', async () => {
    const limited = (await testStore({ ner: { enrich_limit: 2 } })).store;
    for (const content of ['Paris is lovely', 'Berlin is grey', 'Rome is warm'])
      await remember(limited, DEFAULT_SPACE, { content });
    expect((await runEnrichment(limited)).memories).toMatchObject({ candidates: 2, enriched: 2 });

    const regexOnly = (await testStore({ ner: { providers: ['regex', 'known'] } })).store;
    await remember(regexOnly, DEFAULT_SPACE, { content: 'Paris is lovely' });
    const skipped = await runEnrichment(regexOnly);
    expect(skipped.skipped).toMatch(/no accurate NER provider: ner\.providers lists neither compromise nor llm/);
    expect(skipped.memories).toEqual({ candidates: 0, enriched: 0, links: 0 });
    const noModel = await testStore({ ner: { providers: ['regex', 'llm'] } });
    expect((await enrichEntities(await createRuntime(noModel.store, {}))).skipped).toMatch(
      /no LLM is configured \(llm\.model\)/,
    );
    await expect(runEnrichment(regexOnly, {}, { limit: 0 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringContaining('limit'),
    });
  });
});

describe('the llm provider in the accurate strategy', () => {
  let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
  beforeAll(async () => (llm = await startOpenAiServer({ reply: '{"entities":[]}' })));
  afterAll(() => llm.close());

  const setup = async (providers: string[]) => {
    const t = await testStore({
      extractor: { mode: 'heuristic' },
      ner: { providers },
      llm: { endpoint: llm.url, model: 'test-model', timeout_s: 0.5 },
    });
    return { ...t, runtime: await createRuntime(t.store, {}) };
  };

  it('the per-turn job links what the LLM names, with one call per turn however many facts it gave', async () => {
    const { store, runtime } = await setup(['regex', 'known', 'compromise', 'llm']);
    const before = llm.requests.length;
    const { turn, extracted } = await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's',
      role: 'user',
      name: 'Sam',
      text: 'I work at Zorblax Labs with Caroline',
    });
    expect(llm.requests.length).toBe(before); // no network on the hot path
    expect(extracted.map((e) => e.memory.content)).toEqual(['Sam works at Zorblax Labs with Caroline']);
    llm.script({
      reply: '{"entities":[{"text":"Zorblax Labs","type":"organization"},{"text":"Caroline","type":"person"}]}',
    });
    expect(await drainJobs(store, jobHandlers(runtime))).toMatchObject({ done: 1, failed: 0 });
    expect(llm.requests.length).toBe(before + 1);
    expect(llm.requests.at(-1)!.body.messages.at(-1).content).toBe('I work at Zorblax Labs with Caroline');
    expect(
      (await entitiesForTurns(store, [turn.id]))
        .get(turn.id)!
        .map((e) => `${e.name}:${e.type}`)
        .sort(),
    ).toEqual(['Caroline:person', 'Sam:person', 'Zorblax Labs:organization']);
    // The fact restates the turn: it reaches the same entities without a call of its own.
    const memoryId = extracted[0]!.memory.id;
    expect(names((await entitiesForMemories(store, [memoryId])).get(memoryId))).toEqual([
      'Caroline',
      'Sam',
      'Zorblax Labs',
    ]);
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'zorblax labs' })).toMatchObject({
      type: 'organization',
      mentionCount: 2,
    });
    expect(await countRows(store, 'memories', 'enriched_at is null')).toBe(0);
  });

  it('an LLM failure falls back to the other providers and is reported; the rows are still stamped', async () => {
    const { store, runtime } = await setup(['regex', 'known', 'llm']);
    await remember(store, DEFAULT_SPACE, { content: 'Ask @bob about Project Apollo' });
    llm.script({ status: 503 });
    const report = await enrichEntities(runtime);
    // @bob was linked when the fact was remembered; the failed LLM adds nothing more.
    expect(report.memories).toEqual({ candidates: 1, enriched: 1, links: 0 });
    expect(report.failures).toEqual([{ provider: 'llm', error: expect.stringContaining('503'), count: 1 }]);
    expect(await findEntity(store, DEFAULT_SPACE, { name: '@bob' })).toBeDefined();
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'Project Apollo' })).toBeUndefined();
    expect(await countRows(store, 'memories', 'enriched_at is null')).toBe(0);
  });
});
