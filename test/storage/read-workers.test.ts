// Read workers (server.read_workers): search and context answered by threads on read-only
// connections, the writes kept on the main thread. Through a real server over HTTP: the workers'
// answers equal the main thread's, a write is seen by the next read, one user never sees
// another's memory, a crashed worker is replaced, Postgres runs without them, and `sm serve`
// (the CLI bundle) starts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/core/kernel/config.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { buildApp } from '../../server/http/app.ts';
import { openPostgresStore } from '../../server/storage/postgres/open-postgres.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { ReadWorkerLost, readWorkerCount, startReadPool } from '../../server/services/read-pool.ts';
import { searchSchema } from '../../server/core/search/types.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';
import { smServe } from '../helpers/sm-serve.ts';

const SEARCH = `query($query: String!, $userId: String, $kinds: [SearchKind!]) {
  search(query: $query, userId: $userId, kinds: $kinds, limit: 20) { kind id text score sessionId at sourceTurnIds signals { signal rank } memory { id content accessCount } turn { id text } }
}`;
const CONTEXT =
  'query($sessionId: String!, $query: String, $userId: String) { context(sessionId: $sessionId, query: $query, userId: $userId) { markdown } }';
const STATS = '{ stats { readWorkers { size ready busy queued served inProcess restarts } } }';
const ADD_TURN =
  'mutation($input: AddTurnInput!, $userId: String) { addTurn(input: $input, userId: $userId) { turn { id } } }';

type Graphql = TestServer['graphql'];

async function ok(graphql: Graphql, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await graphql(query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

const readWorkers = async (graphql: Graphql) =>
  (await ok(graphql, STATS)).stats.readWorkers as {
    size: number;
    ready: number;
    busy: number;
    served: number;
    inProcess: number;
    restarts: number;
  } | null;

/** Waits until `n` workers answer: the first read starts them, and reads run in-process while they load. */
async function workersReady(graphql: Graphql, n: number) {
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if ((await readWorkers(graphql))?.ready === n) return;
    // Two at once: a lone read never starts them (it runs on the main thread).
    await Promise.all([ok(graphql, SEARCH, { query: 'anything' }), ok(graphql, SEARCH, { query: 'anything' })]);
  }
  throw new Error(`${n} read workers not ready in 30 s: ${JSON.stringify(await readWorkers(graphql))}`);
}

const LINES: [string, string, string][] = [
  ['alice', 'trip', 'I flew to Lisbon with Maria last May and we ate pastel de nata'],
  ['alice', 'trip', 'Maria loves the tram rides up to the castle'],
  ['alice', 'work', 'My manager Priya wants the quarterly report by Friday'],
  ['alice', 'work', 'I like JRPGs and my name is Alex'],
  ['alice', 'pets', 'I adopted a cat named Miso last week'],
  ['bob', 'pets', 'My dog Rex chewed the sofa in Paris'],
  ['bob', 'work', 'Bob said the quarterly numbers look great for Kyoto'],
];
const QUERIES = [
  'Lisbon trip with Maria',
  'quarterly report',
  'what is my name',
  'Miso the cat',
  'Rex the dog in Paris',
  'castle tram',
  'Kyoto numbers',
];

describe('read workers', () => {
  let server: TestServer;
  const clock = { now: () => Date.UTC(2026, 5, 1, 12) };

  beforeAll(async () => {
    // Every read to a worker, a lone one too, so that each answer below is a worker's.
    server = await startServer({
      clock,
      readWorkers: 2,
      loneReadsToWorkers: true,
      config: { extractor: { mode: 'heuristic' } },
    });
    for (const [userId, sessionId, text] of LINES)
      await ok(server.graphql, ADD_TURN, { userId, input: { sessionId, role: 'USER', text } });
    await workersReady(server.graphql, 2);
  });
  afterAll(() => server?.close());

  it('answer search and context as the main thread does, and count what they served', async () => {
    const asked: { query: string; variables: Record<string, unknown> }[] = [];
    for (const userId of ['alice', 'bob']) {
      for (const q of QUERIES) {
        asked.push({ query: SEARCH, variables: { query: q, userId } });
        asked.push({ query: SEARCH, variables: { query: q, userId, kinds: ['FACT'] } });
        asked.push({ query: CONTEXT, variables: { sessionId: 'new', query: q, userId } });
      }
      asked.push({ query: CONTEXT, variables: { sessionId: 'trip', userId } });
    }
    const before = (await readWorkers(server.graphql))!;
    const byWorkers = [];
    for (const { query, variables } of asked) byWorkers.push(await ok(server.graphql, query, variables));
    const after = (await readWorkers(server.graphql))!;
    expect(after.served - before.served).toBe(asked.length);
    expect(after.inProcess).toBe(before.inProcess);
    expect(byWorkers.filter((d) => d.search?.length > 0).length).toBeGreaterThan(10);

    // The same file and clock, a fresh store (caches as cold as the workers' were), no workers.
    const store = await openStore({
      path: server.store.sql.location,
      env: {},
      clock,
      config: { extractor: { mode: 'heuristic' } },
    });
    const app = buildApp({
      store,
      host: '127.0.0.1',
      port: 0,
      jobs: false,
      readWorkers: 0,
      logger: pino({ level: 'silent' }),
    });
    const { url } = await app.start();
    try {
      const graphql: Graphql = async (query, variables) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        });
        return { status: response.status, body: await response.json() };
      };
      expect(await readWorkers(graphql)).toBeNull();
      const inProcess = [];
      for (const { query, variables } of asked) inProcess.push(await ok(graphql, query, variables));
      // Access counts move with every search (each server counts its own): compared apart.
      const counts = (data: any[]) =>
        data.flatMap((d) =>
          (d.search ?? []).map((h: any) => h.memory && { ...h, memory: { ...h.memory, accessCount: 0 } }),
        );
      expect(counts(inProcess)).toEqual(counts(byWorkers));
      expect(inProcess.map((d) => d.context?.markdown)).toEqual(byWorkers.map((d) => d.context?.markdown));
      expect(inProcess.map((d) => d.search?.map((h: any) => [h.kind, h.id, h.score]))).toEqual(
        byWorkers.map((d) => d.search?.map((h: any) => [h.kind, h.id, h.score])),
      );
    } finally {
      await app.stop();
      await closeStore(store);
    }
  });

  it('see a turn as soon as its addTurn answered, in every worker, and the main thread records what they accessed', async () => {
    const before = (await readWorkers(server.graphql))!;
    const speakers = ['Quentin', 'Rosalind', 'Ignatius', 'Philippa', 'Leopold', 'Henrietta', 'Casimir', 'Ottoline'];
    for (let i = 0; i < speakers.length; i++) {
      const word = `zeppelin${i}x`;
      const speaker = speakers[i]!;
      await ok(server.graphql, ADD_TURN, {
        userId: 'alice',
        input: { sessionId: 'fresh', role: 'USER', name: speaker, text: `We saw the ${word} over the harbour` },
      });
      // Several at once: every worker is asked, not only the first free one.
      const found = await Promise.all(
        Array.from({ length: 4 }, () => ok(server.graphql, SEARCH, { query: `${word} harbour`, userId: 'alice' })),
      );
      for (const { search } of found)
        expect(search.map((h: any) => h.text)).toContain(`We saw the ${word} over the harbour`);
      // A speaker first seen in this turn is known to the worker's speaker cache at once.
      const spoken = await ok(server.graphql, SEARCH, {
        query: `what did ${speaker} see over the harbour`,
        userId: 'alice',
        kinds: ['TURN'],
      });
      expect(spoken.search[0]?.text).toContain(word);
      const { context } = await ok(server.graphql, CONTEXT, { sessionId: 'other', query: word, userId: 'alice' });
      expect(context.markdown).toContain(word);
    }
    expect((await readWorkers(server.graphql))!.served - before.served).toBe(8 * 6);
    const { search } = await ok(server.graphql, SEARCH, { query: 'Miso cat', userId: 'alice', kinds: ['FACT'] });
    const fact = search[0].memory;
    await ok(server.graphql, CONTEXT, { sessionId: 'other', query: 'Miso cat', userId: 'alice' });
    // Accesses are written on the main thread's next tick.
    await new Promise((r) => setTimeout(r, 100));
    const again = await ok(server.graphql, `{ memory(id: ${fact.id}, userId: "alice") { accessCount } }`);
    expect(again.memory.accessCount).toBeGreaterThanOrEqual(fact.accessCount + 2);
  });

  it("never hand one user's memory to another", async () => {
    await ok(server.graphql, ADD_TURN, {
      userId: 'alice',
      input: { sessionId: 'secret', role: 'USER', text: 'My locker code is bluefalcon and Rex must never know' },
    });
    const before = (await readWorkers(server.graphql))!;
    for (let i = 0; i < 6; i++) {
      const { search } = await ok(server.graphql, SEARCH, { query: 'bluefalcon locker code', userId: 'bob' });
      expect(JSON.stringify(search)).not.toMatch(/bluefalcon/);
      const { context } = await ok(server.graphql, CONTEXT, {
        sessionId: 'secret',
        query: 'bluefalcon locker',
        userId: 'bob',
      });
      expect(context.markdown).not.toMatch(/bluefalcon/);
      const mine = await ok(server.graphql, SEARCH, { query: 'bluefalcon locker code', userId: 'alice' });
      expect(JSON.stringify(mine.search)).toMatch(/bluefalcon/);
    }
    expect((await readWorkers(server.graphql))!.served - before.served).toBe(18);
  });

  it('replace a worker that dies, and answer the reads it held', async () => {
    const expected = await ok(server.graphql, SEARCH, { query: 'Lisbon trip with Maria', userId: 'alice' });
    const before = (await readWorkers(server.graphql))!;
    const answers = Array.from({ length: 30 }, () =>
      ok(server.graphql, SEARCH, { query: 'Lisbon trip with Maria', userId: 'alice' }),
    );
    await new Promise((r) => setTimeout(r, 5));
    await server.runtime.reads!.crash(0);
    const all = await Promise.all(answers);
    const hits = (d: any) => d.search.map((h: any) => [h.kind, h.id, h.score]);
    for (const answer of all) expect(hits(answer)).toEqual(hits(expected));
    await workersReady(server.graphql, 2);
    const after = (await readWorkers(server.graphql))!;
    expect(after.restarts).toBe(before.restarts + 1);
    const served = after.served;
    expect(hits(await ok(server.graphql, SEARCH, { query: 'Lisbon trip with Maria', userId: 'alice' }))).toEqual(
      hits(expected),
    );
    expect((await readWorkers(server.graphql))!.served).toBe(served + 1);
  });
});

describe('a read worker that does not answer', () => {
  it('is ended and replaced once the read times out, and the read is handed back to the main thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-read-stuck-'));
    const store = await openStore({
      path: join(dir, 'memory.db'),
      env: {},
      config: { extractor: { mode: 'heuristic' } },
    });
    // 1 ms: a worker's first search (statements to prepare, caches to fill) always takes longer.
    const pool = startReadPool(store, 1, { readTimeoutMs: 1 })!;
    try {
      await addTurn(
        store,
        { userId: 'alice', agentId: null },
        { sessionId: 's', role: 'user', text: 'I flew to Lisbon with Maria' },
      );
      const call = {
        kind: 'search' as const,
        space: { userId: 'alice', agentId: null },
        input: searchSchema.parse({ query: 'Lisbon Maria' }),
        queryVector: null,
      };
      expect(pool.run(call)).toBeNull(); // the first read starts the worker and runs on the main thread
      for (const until = Date.now() + 30_000; pool.stats().ready < 1 && Date.now() < until; )
        await new Promise((r) => setTimeout(r, 20));
      expect(pool.stats().ready).toBe(1);
      const lost = await pool.run(call)!.catch((error: Error) => error);
      expect(lost).toBeInstanceOf(ReadWorkerLost);
      expect(String(lost)).toMatch(/took over 1 ms on one read/);
      expect(pool.stats()).toMatchObject({ served: 0, restarts: 1 });
    } finally {
      await pool.stop();
      await closeStore(store);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('read workers are off', () => {
  it('on Postgres, without errors', async () => {
    const store = await openPostgresStore({ url: 'pglite:', env: {}, config: { extractor: { mode: 'heuristic' } } });
    const app = buildApp({
      store,
      host: '127.0.0.1',
      port: 0,
      jobs: false,
      readWorkers: 2,
      logger: pino({ level: 'silent' }),
    });
    const { url } = await app.start();
    const graphql: Graphql = async (query, variables) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: await response.json() };
    };
    try {
      await ok(graphql, ADD_TURN, { input: { sessionId: 's', role: 'USER', text: 'I flew to Lisbon with Maria' } });
      expect((await ok(graphql, SEARCH, { query: 'Lisbon Maria' })).search.length).toBeGreaterThan(0);
      expect((await ok(graphql, CONTEXT, { sessionId: 'n', query: 'Lisbon' })).context.markdown).toMatch(/Lisbon/);
      expect(await readWorkers(graphql)).toBeNull();
    } finally {
      await app.stop();
      await closeStore(store);
    }
  });

  it('with server.read_workers 0; unset, one per core beyond the first, at most 4; a bad count is refused', async () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => readWorkerCount(undefined, cores))).toEqual([0, 0, 0, 3, 4, 4]);
    expect(readWorkerCount(0, 8)).toBe(0);
    expect(readWorkerCount(6, 2)).toBe(6);
    await expect(
      openStore({ path: ':memory:', env: {}, config: { server: { read_workers: -1 } } }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('sm serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sm-read-workers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts its read workers from the CLI bundle, and stops with them', async () => {
    const serve = await smServe(join(dir, 'serve.db'), ['--no-scheduler'], { SM_CONFIG__SERVER__READ_WORKERS: '1' });
    const graphql: Graphql = async (query, variables) => {
      const response = await fetch(serve.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: await response.json() };
    };
    try {
      await ok(graphql, ADD_TURN, { input: { sessionId: 's', role: 'USER', text: 'I flew to Lisbon with Maria' } });
      // None before the first read, which starts them and is answered in-process.
      expect(await readWorkers(graphql)).toMatchObject({ size: 1, ready: 0, served: 0, inProcess: 0 });
      await workersReady(graphql, 1);
      const before = (await readWorkers(graphql))!;
      expect(before.inProcess).toBeGreaterThanOrEqual(1);
      // Reads that overlap go to the worker (one at a time, the others queued); on a busy machine
      // requests sent at once may still arrive one by one, so batches are sent until some overlap.
      let sent = 0;
      let during = before;
      while (during.served === before.served && sent < 200) {
        const found = await Promise.all(
          Array.from({ length: 4 }, () => ok(graphql, SEARCH, { query: 'Lisbon Maria' })),
        );
        for (const { search } of found) expect(search.map((h: any) => h.text)).toContain('I flew to Lisbon with Maria');
        sent += 4;
        during = (await readWorkers(graphql))!;
      }
      expect(during).toMatchObject({ size: 1, ready: 1 });
      expect(during.served).toBeGreaterThan(before.served);
      expect(during.served - before.served + during.inProcess - before.inProcess).toBe(sent);
      // ...and a lone one runs on the main thread, saving the hop.
      expect((await ok(graphql, SEARCH, { query: 'Lisbon Maria' })).search.map((h: any) => h.text)).toContain(
        'I flew to Lisbon with Maria',
      );
      expect((await readWorkers(graphql))!).toMatchObject({ served: during.served, inProcess: during.inProcess + 1 });
    } finally {
      await serve.stop();
    }
  });
});
