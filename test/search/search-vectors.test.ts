// Vector search against an OpenAI-compatible embedding server that is not ours (a local test
// server over HTTP, through the real openai client): vectors are written by the job after the
// commit, hits carry a vector rank, a provider ignoring `dimensions` is truncated and
// re-normalised, and a dimension change is detected and can be reset.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forget } from '../../server/core/memory/forget.ts';
import { remember } from '../../server/core/memory/memories.ts';
import { countVectors, search, vectorState } from '../../server/core/search/index.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { reembed } from '../../server/services/embed.ts';
import { searchMemory } from '../../server/services/search.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { openTestStore } from '../helpers/store.ts';

type Server = Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: Server[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(
  options: {
    dimensions?: number;
    native?: number;
    honourDimensions?: boolean | 'reject';
    path?: string;
    url?: string;
    model?: string;
    synonyms?: string[][];
    turnWeight?: number;
  } = {},
) {
  let url = options.url;
  if (!url) {
    const server = await startOpenAiServer(undefined, {
      native: options.native ?? 64,
      honourDimensions: options.honourDimensions,
      synonyms: options.synonyms,
    });
    servers.push(server);
    url = server.url;
  }
  const store = await openTestStore({
    path: options.path ?? ':memory:',
    env: {},
    config: {
      extractor: { mode: 'heuristic' },
      ner: { enabled: false },
      embedding: {
        model: options.model ?? 'hash-embed',
        endpoint: url,
        dimensions: options.dimensions ?? 16,
        ...(options.turnWeight === undefined ? {} : { turn_weight: options.turnWeight }),
      },
    },
  });
  stores.push(store);
  const runtime = await createRuntime(store, {});
  const say = (text: string, name = 'Caroline', sessionId = 's1') =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role: 'user', name, text });
  return { store, runtime, say, url };
}

/** A stored embedding (float32, as written), as numbers. */
const vectorOf = async (store: Store, table: string, id: number) => {
  const blob = await store.sql.pluck<Uint8Array>(`select embedding from ${table} where id = ?`, [id]);
  return Array.from(new Float32Array(new Uint8Array(blob!).buffer));
};
const pendingEmbeds = async (store: Store, failedWith = '') =>
  (await store.sql.get<{ n: number }>(
    "select count(*) as n from jobs where type = 'embed' and status = 'pending' and coalesce(last_error, '') like ?",
    [`%${failedWith}%`],
  ))!.n;

describe('vector search', () => {
  it('stores vectors only after the embedding job runs, and hits show a vector rank', async () => {
    const { store, runtime, say } = await setup();
    expect(vectorState(store)).toMatchObject({ ready: true, spec: { dimensions: 16, model: 'hash-embed' } });
    const { turn } = await say('We adopted a guinea pig named Oscar yesterday.');
    await say('The weather was rainy all week.');
    const fact = (await remember(store, DEFAULT_SPACE, { content: 'Caroline has a guinea pig called Oscar' })).memory;
    expect(await countVectors(store, 'turns')).toBe(0); // the hot path made no network call
    expect(await pendingEmbeds(store)).toBeGreaterThanOrEqual(3);

    const report = await drainJobs(store, jobHandlers(runtime));
    expect(report.failed).toBe(0);
    expect(await countVectors(store, 'turns')).toBe(2);
    expect(await countVectors(store, 'memories')).toBeGreaterThanOrEqual(1);
    const stored = await vectorOf(store, 'turn_vectors', turn.id);
    expect(stored).toHaveLength(16);
    expect(Math.hypot(...stored)).toBeCloseTo(1, 5);

    const { hits, signals } = await searchMemory(runtime, DEFAULT_SPACE, { query: 'guinea pig Oscar' });
    expect(signals).toContain('vector');
    const turnHit = hits.find((h) => h.kind === 'turn' && h.id === turn.id)!;
    expect(turnHit.ranks.vector).not.toBeNull();
    expect(hits.find((h) => h.kind === 'fact' && h.id === fact.id)?.ranks.vector).not.toBeNull();
    // Without the query vector the same search has no vector signal.
    expect((await search(store, DEFAULT_SPACE, { query: 'guinea pig Oscar' })).signals).not.toContain('vector');
  });

  // The model's cosine is a feature of the turn ranker, and its nearest turns are scored (fusing
  // its list by rank lost recall on LoCoMo): a turn that shares no word with the question is found
  // through the model, and one that matches the question's words as well stays first.
  async function pottery(turnWeight?: number) {
    const { store, runtime, say } = await setup({
      dimensions: 64,
      synonyms: [['ceramics', 'pottery', 'clay']],
      turnWeight,
    });
    const { turn: both } = await say('My pottery teacher says clay needs patience.');
    await say('The weather was rainy all week.');
    // Another session, away from the word match's neighbours (which the ranker scores too).
    for (const text of ['We watched a film about sharks.', 'The train was late again.', 'My brother fixed his bike.'])
      await say(text, 'Caroline', 's2');
    const { turn: ceramics } = await say('I signed up for a ceramics class on Saturdays.', 'Caroline', 's2');
    for (const text of ['Dinner was pasta with basil.', 'The cat slept all afternoon.', 'We repainted the kitchen.'])
      await say(text, 'Caroline', 's2');
    await drainJobs(store, jobHandlers(runtime));
    return { store, runtime, both, ceramics };
  }

  it('finds a turn through the model when it shares no word with the query, and keeps the word match first', async () => {
    const { store, runtime, both, ceramics } = await pottery();
    expect(
      (await search(store, DEFAULT_SPACE, { query: 'pottery lessons', kinds: ['turn'] })).hits.map((h) => h.id),
    ).not.toContain(ceramics.id);
    const { hits, signals } = await searchMemory(runtime, DEFAULT_SPACE, {
      query: 'pottery lessons',
      kinds: ['turn'],
    });
    expect(signals).toContain('vector');
    expect(hits[0]).toMatchObject({ kind: 'turn', id: both.id });
    const found = hits.find((h) => h.id === ceramics.id)!;
    expect(found.ranks.vector).not.toBeNull();
    expect(found.ranks.lexical).not.toBeNull(); // scored by the ranker, where the model's cosine counted
  });

  it('embedding.turn_weight sets how much the model counts: at 0 its nearest turns are scored, its cosine is not', async () => {
    const rankOf = async (weight?: number) => {
      const { runtime, ceramics } = await pottery(weight);
      const { hits } = await searchMemory(runtime, DEFAULT_SPACE, { query: 'pottery lessons', kinds: ['turn'] });
      const at = hits.findIndex((h) => h.id === ceramics.id);
      expect(hits[at]!.ranks.vector).not.toBeNull();
      return at;
    };
    const [zero, byDefault, heavy] = [await rankOf(0), await rankOf(), await rankOf(40)];
    expect(byDefault).toBeLessThan(zero);
    expect(heavy).toBeLessThan(byDefault);
  });

  it('asks for the configured dimensions, and truncates + re-normalises when the provider ignores them', async () => {
    for (const honourDimensions of [true, false]) {
      const { store, runtime, say } = await setup({ dimensions: 12, native: 48, honourDimensions });
      const { turn } = await say('Painting sunsets at the lake with my kids.');
      await drainJobs(store, jobHandlers(runtime));
      const server = servers.at(-1)!;
      expect(server.requests.find((r) => r.path.endsWith('/embeddings'))!.body).toMatchObject({
        model: 'hash-embed',
        dimensions: 12,
      });
      const stored = await vectorOf(store, 'turn_vectors', turn.id);
      expect(stored).toHaveLength(12);
      expect(Math.hypot(...stored)).toBeCloseTo(1, 5);
    }
  });

  it('asks without `dimensions` from then on when the provider rejects the parameter', async () => {
    const { store, runtime, say } = await setup({ dimensions: 12, native: 48, honourDimensions: 'reject' });
    const first = await say('Painting sunsets at the lake with my kids.');
    const report = await drainJobs(store, jobHandlers(runtime));
    expect(report.failed).toBe(0);
    const second = await say('My kids love the lake in summer.');
    await drainJobs(store, jobHandlers(runtime));
    const bodies = servers
      .at(-1)!
      .requests.filter((r) => r.path.endsWith('/embeddings'))
      .map((r) => r.body);
    // Rejected requests (the jobs that were already in flight), then none with the parameter.
    const lastRejected = bodies.findLastIndex((b) => b.dimensions !== undefined);
    expect(lastRejected).toBeGreaterThanOrEqual(0);
    expect(bodies.slice(lastRejected + 1).length).toBeGreaterThanOrEqual(2);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const turn of [first.turn, second.turn]) {
      const stored = await vectorOf(store, 'turn_vectors', turn.id);
      expect(stored).toHaveLength(12);
      expect(Math.hypot(...stored)).toBeCloseTo(1, 5);
    }
  });

  it('detects a dimension change on startup, keeps search working, and reembed --reset rebuilds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-vec-'));
    const path = join(dir, 'db.sqlite');
    const first = await setup({ dimensions: 16, path });
    await first.say('Training for a marathon in October.');
    await drainJobs(first.store, jobHandlers(first.runtime));
    expect(await countVectors(first.store, 'turns')).toBe(1);
    await closeStore(first.store);

    const second = await setup({ dimensions: 32, path, url: first.url });
    const state = vectorState(second.store);
    expect(state.ready).toBe(false);
    expect(state.ready ? '' : state.reason).toMatch(/16-dimensional.*32 dimensions.*sm reembed --reset/s);
    await second.say('Marathon training is going well.');
    expect(await pendingEmbeds(second.store)).toBe(0);
    const result = await searchMemory(second.runtime, DEFAULT_SPACE, { query: 'marathon' });
    expect(result.signals).not.toContain('vector');
    expect(result.hits.length).toBe(2);

    const report = await reembed(second.runtime, { reset: true });
    expect(report).toEqual({
      turns: 2,
      memories: expect.any(Number),
      storedTurns: 2,
      storedMemories: report.memories,
      dimensions: 32,
      model: 'hash-embed',
    });
    expect(vectorState(second.store).ready).toBe(true);
    expect(await vectorOf(second.store, 'turn_vectors', 1)).toHaveLength(32);
    expect((await searchMemory(second.runtime, DEFAULT_SPACE, { query: 'marathon' })).signals).toContain('vector');

    // A model change with the same size is a different vector space: also detected.
    await closeStore(second.store);
    const third = await setup({ dimensions: 32, path, url: first.url, model: 'other-model' });
    expect(vectorState(third.store)).toMatchObject({ ready: false });
  });

  it('reembed backfills rows written before vectors were configured, and resumes', async () => {
    const server = await startOpenAiServer();
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), 'sm-vec-'));
    const path = join(dir, 'db.sqlite');
    const plain = await openTestStore({
      path,
      env: {},
      config: { extractor: { mode: 'heuristic' }, ner: { enabled: false } },
    });
    const runtime = await createRuntime(plain, {});
    for (const text of ['I love hiking.', 'My dog is named Rex.', 'I work as a nurse.'])
      await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', name: 'Ana', text });
    await closeStore(plain);

    const { store, runtime: withVectors } = await setup({ path, url: server.url });
    expect(await countVectors(store, 'turns')).toBe(0);
    const progress: number[] = [];
    const report = await reembed(withVectors, { onProgress: (done) => progress.push(done) });
    expect(report.turns).toBe(3);
    expect(progress.at(-1)).toBeGreaterThanOrEqual(3);
    const calls = server.requests.length;
    const again = await reembed(withVectors); // nothing left to do
    expect(server.requests.length).toBe(calls);
    expect(again).toMatchObject({ turns: 0, memories: 0, storedTurns: 3, storedMemories: report.storedMemories });
  });

  it('forget removes vectors; a failing endpoint retries the job and search degrades to lexical', async () => {
    const server = await startOpenAiServer();
    servers.push(server);
    const { store, runtime, say } = await setup({ url: server.url });
    await say('Our cat Bailey knocked over a vase.');
    server.failEmbeddings(100);
    const first = await drainJobs(store, jobHandlers(runtime)); // embed jobs fail (503), retried later
    expect(first.failed).toBeGreaterThan(0);
    expect(await pendingEmbeds(store, '503')).toBe(first.failed);
    expect(await countVectors(store, 'turns')).toBe(0);
    // The query embedding fails too: search still answers, lexically.
    const result = await searchMemory(runtime, DEFAULT_SPACE, { query: 'Bailey vase' });
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.signals).not.toContain('vector');

    server.failEmbeddings(0);
    await reembed(runtime);
    expect(await countVectors(store, 'turns')).toBe(1);
    await forget(store, DEFAULT_SPACE, { text: 'Bailey' });
    expect(await countVectors(store, 'turns')).toBe(0);
  });
});
