// LLM and hybrid extraction through the real `openai` client against a local OpenAI-compatible server.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExtractionStats } from '../../server/core/extraction/stats.ts';
import { jobCounts, listJobs } from '../../server/core/jobs/jobs.ts';
import { getMemory, remember } from '../../server/core/memory/memories.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { onChange } from '../../server/core/kernel/store.ts';
import { extractionJobHandlers, ingestTurn } from '../../server/services/ingest.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { testStore } from '../helpers/store.ts';

let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
beforeAll(async () => (llm = await startOpenAiServer()));
afterAll(() => llm.close());

async function setup(mode: 'llm' | 'hybrid', endpoint = llm.url) {
  // NER off: these tests count extraction jobs and LLM calls (NER has its own tests).
  const t = await testStore({
    extractor: { mode },
    llm: { endpoint, model: 'test-model', timeout_s: 0.4 },
    ner: { enabled: false },
  });
  return { ...t, runtime: await createRuntime(t.store, {}) };
}
const say = (runtime: Awaited<ReturnType<typeof setup>>['runtime'], text: string) =>
  ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', name: 'Alex', text });

describe('llm mode', () => {
  it('creates and archives what the model says, and shows it the related memories', async () => {
    const { runtime, store } = await setup('llm');
    const berlin = (await remember(store, DEFAULT_SPACE, { content: 'Alex lives in Berlin' })).memory;
    llm.script({
      reply: JSON.stringify([
        { action: 'create', content: 'Alex lives in Lisbon', importance: 1, tags: ['place'] },
        { action: 'archive', id: berlin.id, content: 'moved away' },
      ]),
      usage: { prompt_tokens: 120, completion_tokens: 30 },
    });
    const before = llm.requests.length;
    const result = await say(runtime, 'I moved to Lisbon, it is lovely');
    expect(result.extracted.map((e) => [e.action, e.memory.content])).toEqual([
      ['created', 'Alex lives in Lisbon'],
      ['archived', 'Alex lives in Berlin'],
    ]);
    expect((await getMemory(store, berlin.id))!.status).toBe('archived');
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => [m.content, m.importance, m.tags])).toEqual([
      ['Alex lives in Lisbon', 1, ['place']],
    ]);
    const request = llm.requests[before]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.body.model).toBe('test-model');
    expect(request.body.messages[1].content).toContain(`#${berlin.id}: Alex lives in Berlin`);
    expect((await readExtractionStats(store)).llm).toMatchObject({
      runs: 1,
      failures: 0,
      facts: 2,
      promptTokens: 120,
      completionTokens: 30,
    });
    expect(await jobCounts(store)).toMatchObject({ pending: 0, done: 1 }); // the crash-recovery job was settled
  });

  it('accepts an object wrapping the action array and fenced JSON', async () => {
    const { runtime } = await setup('llm');
    llm.script({ reply: '```json\n{"memories":[{"action":"create","content":"Alex plays chess"}]}\n```' });
    expect((await say(runtime, 'chess tonight')).extracted.map((e) => e.memory.content)).toEqual(['Alex plays chess']);
  });

  const failures = [
    ['stalls past the timeout', { delayMs: 2_000 }],
    ['answers 500', { status: 500 }],
    ['answers 429', { status: 429, message: 'rate limited' }],
    ['returns garbage', { reply: 'Sure! Here are the facts: Alex likes JRPGs' }],
    ['returns JSON of the wrong shape', { reply: '[{"action":"explode"}]' }],
    ['sends a malformed body', { raw: '{"choices": [' }],
  ] as const;
  for (const [what, behaviour] of failures) {
    it(`stores the turn and runs heuristics when the model ${what}`, async () => {
      const { runtime, store } = await setup('llm');
      llm.script(behaviour);
      const started = performance.now();
      const result = await say(runtime, 'I like JRPGs and my name is Alex');
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(result.turn.id).toBeGreaterThan(0);
      expect(result.extracted.map((e) => e.memory.content)).toEqual(['Alex likes JRPGs', "Alex's name is Alex"]);
      const stats = await readExtractionStats(store);
      expect(stats.llm).toMatchObject({ runs: 1, failures: 1 });
      expect(stats.fallback).toMatchObject({ runs: 1, facts: 2 });
      expect(stats.llm.lastError).not.toContain('JRPG');
    });
  }

  it('falls back when the endpoint refuses connections', async () => {
    const { runtime, store } = await setup('llm', 'http://127.0.0.1:9/v1');
    const result = await say(runtime, 'I like tea');
    expect(result.extracted.map((e) => e.memory.content)).toEqual(['Alex likes tea']);
    expect((await readExtractionStats(store)).llm.lastError).toBe('connection failed');
  });
});

describe('hybrid mode', () => {
  it('answers with heuristics at once and publishes the LLM augmentation from a durable job', async () => {
    const { runtime, store } = await setup('hybrid');
    const events: string[] = [];
    onChange(store, (e) => e.type === 'memory' && events.push(`${e.action}:${e.memoryId}`));
    const before = llm.requests.length;
    const result = await say(runtime, 'I like JRPGs');
    expect(llm.requests.length).toBe(before); // no network call on the hot path
    expect(result.extracted.map((e) => e.memory.content)).toEqual(['Alex likes JRPGs']);
    expect((await jobCounts(store)).pending).toBe(1);

    llm.script({
      reply: JSON.stringify([
        { action: 'create', content: 'Alex enjoys Japanese role-playing games', tags: ['games'] },
      ]),
    });
    const report = await drainJobs(store, extractionJobHandlers(runtime));
    expect(report).toEqual({ ran: 1, done: 1, failed: 0, dead: 0 });
    const augmented = (await listMemories(store, DEFAULT_SPACE, { q: 'japanese' })).rows[0]!;
    expect(augmented.content).toBe('Alex enjoys Japanese role-playing games');
    expect(events).toContain(`created:${augmented.id}`);
    expect((await readExtractionStats(store)).hybrid).toMatchObject({ runs: 1, failures: 0, facts: 1 });
  });

  it('retries a failing augmentation with backoff, then dead-letters it with the error', async () => {
    const { runtime, store, advanceDays } = await setup('hybrid');
    await say(runtime, 'I like go');
    const handlers = extractionJobHandlers(runtime);
    const attempts = (await listJobs(store))[0]!.maxAttempts;
    for (let i = 1; i <= attempts; i++) {
      llm.script({ status: 500 });
      const report = await drainJobs(store, handlers);
      expect(report.failed).toBe(1);
      const [job] = await listJobs(store);
      expect(job!.attempts).toBe(i);
      expect(job!.status).toBe(i < attempts ? 'pending' : 'dead');
      // Not due again until its backoff passes.
      expect((await drainJobs(store, handlers)).ran).toBe(0);
      advanceDays(1);
    }
    expect((await listJobs(store))[0]).toMatchObject({ status: 'dead', lastError: expect.stringContaining('500') });
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['Alex likes go']);
  });
});
