// Load past capacity answers 503 with Retry-After instead of queueing without bound, and no
// acknowledged write is lost: a full job queue (worker.max_queue) refuses addTurn over GraphQL
// and REST, too many requests at once (server.max_requests) are refused before they are read;
// backlog and lag show in stats, `sm stats` and `sm doctor`.
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const ADD_TURN = 'mutation($input: AddTurnInput!) { addTurn(input: $input) { turn { id text } } }';

type Answer = { status: number; retryAfter: string | null; body: any };

async function post(server: TestServer, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

const addTurn = (server: TestServer, text: string, sessionId = 's1') =>
  post(server, '/graphql', { query: ADD_TURN, variables: { input: { sessionId, role: 'USER', text } } });
const storedTexts = (server: TestServer) =>
  new Set(server.store.sqlite.prepare('select text from turns').pluck().all() as string[]);

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('a full job queue', () => {
  it('refuses addTurn with 503 and Retry-After, writes nothing for it, and loses no acknowledged turn', async () => {
    // No worker: every turn queues its accurate-NER job and nothing runs them.
    const server = await startServer({ config: { extractor: { mode: 'heuristic' }, worker: { max_queue: 10 } } });
    servers.push(server);
    const texts = Array.from({ length: 30 }, (_, i) => `I met Alice number ${i} in Paris`);
    const answers = await Promise.all(texts.map((text) => addTurn(server, text)));
    const acked = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    expect(acked).toHaveLength(10);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('2');
      expect(answer.body.data).toBeNull();
      // The HTTP status and header are taken out of the error: the body says the code and when to retry.
      expect(answer.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', retryAfter: 2 });
      expect(answer.body.errors[0].message).toMatch(/10 background jobs are waiting \(worker\.max_queue is 10\)/);
    }
    // Every acknowledged turn is stored, and nothing of a refused one.
    const stored = storedTexts(server);
    expect(stored.size).toBe(10);
    for (const answer of acked) expect(stored.has(answer.body.data.addTurn.turn.text)).toBe(true);

    // REST says the same.
    const rest = await post(server, '/turns', { session_id: 's1', role: 'user', text: 'over REST' });
    expect(rest).toMatchObject({ status: 503, retryAfter: '2', body: { error: { code: 'UNAVAILABLE' } } });
    // Bad input is refused as such first, full queue or not, over GraphQL and REST alike.
    const blank = await addTurn(server, '   ');
    expect(blank.status).toBe(200);
    expect(blank.body.errors[0]).toMatchObject({
      message: 'input.text: must not be empty',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(await post(server, '/turns', { session_id: 's1', role: 'user', text: '   ' })).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_USER_INPUT', message: 'text: must not be empty' } },
    });
    expect(storedTexts(server).size).toBe(10);

    // As the worker catches up, the client's retries go through, ten at a time: all 30 are stored.
    for (let round = 0; storedTexts(server).size < 30 && round < 5; round++) {
      expect(
        (await post(server, '/graphql', { query: 'mutation { runJobs { done } }' })).body.data.runJobs.done,
      ).toBeGreaterThanOrEqual(10);
      const missing = texts.filter((t) => !storedTexts(server).has(t));
      const retried = await Promise.all(missing.map((text) => addTurn(server, text)));
      expect(retried.filter((a) => a.status === 200)).toHaveLength(Math.min(10, missing.length));
    }
    expect(storedTexts(server)).toEqual(new Set(texts));
  });

  it('with the worker running and 16 writers retrying after their 503s, every acknowledged turn is stored, and only those', {
    timeout: 60_000,
  }, async () => {
    const server = await startServer({
      jobs: true,
      config: { extractor: { mode: 'heuristic' }, worker: { max_queue: 3 } },
    });
    servers.push(server);
    const acked: number[] = [];
    let refusals = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let i = 0; i < 15; i++) {
          for (;;) {
            const answer = await addTurn(server, `Writer ${w} met Alice number ${i} in Paris`, `w${w}`);
            if (answer.status === 503) {
              refusals++;
              // A client may come back sooner than Retry-After says: it is refused again, nothing more.
              await new Promise((resolve) => setTimeout(resolve, 20));
              continue;
            }
            expect(answer.status).toBe(200);
            acked.push(answer.body.data.addTurn.turn.id);
            break;
          }
        }
      }),
    );
    expect(acked).toHaveLength(240);
    const ids = server.store.sqlite.prepare('select id from turns order by id').pluck().all() as number[];
    expect(ids).toEqual([...acked].sort((a, b) => a - b));
    // The bound was reached (hundreds of times in practice): the refusals came between acknowledged writes.
    expect(refusals).toBeGreaterThan(0);
  });
});

describe('too many requests at once', () => {
  it('answers 503 with Retry-After before reading the request; /health and the requests under way are unaffected', async () => {
    // llm mode with an LLM that takes 800 ms: each addTurn holds its place until it answers.
    const llm = await startOpenAiServer({ delayMs: 800, then: { reply: '[]' } });
    const server = await startServer({
      config: {
        extractor: { mode: 'llm' },
        llm: { endpoint: llm.url, model: 'test-model', timeout_s: 5 },
        server: { max_requests: 2 },
      },
    });
    servers.push(server);
    try {
      const slow = [addTurn(server, 'I started pottery classes'), addTurn(server, 'I adopted a cat named Miso')];
      while (llm.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = await addTurn(server, 'A third turn, one too many');
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('1');
      expect(refused.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', retryAfter: 1 });
      const rest = await post(server, '/turns', { session_id: 's1', role: 'user', text: 'over REST' });
      expect(rest).toMatchObject({ status: 503, retryAfter: '1', body: { error: { code: 'UNAVAILABLE' } } });
      expect((await fetch(`${server.base}/health`)).status).toBe(200);

      const answered = await Promise.all(slow);
      expect(answered.map((a) => a.status)).toEqual([200, 200]);
      expect(storedTexts(server)).toEqual(new Set(['I started pottery classes', 'I adopted a cat named Miso']));
      // Room again: the retry is taken.
      expect((await addTurn(server, 'A third turn, one too many')).status).toBe(200);
      expect(storedTexts(server).size).toBe(3);
    } finally {
      await llm.close();
    }
  });
});

describe('backlog and lag', () => {
  it('stats, `sm stats` and `sm doctor` show the backlog, how late it is, and accurate NER in cheap mode', {
    timeout: 120_000,
  }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-backlog-')), 'memory.db');
    const t0 = Date.UTC(2026, 5, 1, 12);
    const store = await openStore({
      path,
      env: {},
      clock: { now: () => t0 },
      config: { extractor: { mode: 'heuristic' } },
    });
    const runtime = await createRuntime(store, {});
    for (const text of ['I met Alice in Paris', 'Bruno lives in Madrid', 'Carla works at Google'])
      await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text });
    await closeStore(store);

    // 90 seconds later, nothing has run them.
    const later = { SM_NOW: new Date(t0 + 90_000).toISOString() };
    const stats = await sm(['--db', path, '--json', 'stats'], later);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.json.jobs).toMatchObject({
      pending: 3,
      backlog: 3,
      lagSeconds: 90,
      byType: [{ type: 'ner.accurate', backlog: 3, lagSeconds: 90 }],
      nerDeferred: 0,
      nerCheapMode: false,
    });
    const plain = await sm(['--db', path, 'stats'], later);
    expect(plain.stdout).toContain('backlog 3, lag 90.0 s (ner.accurate 3, 90.0 s)');

    // Past ner.max_backlog (2 here), a new turn's accurate pass is deferred: doctor says so, and fails.
    const cheap = { ...later, SM_CONFIG__NER__MAX_BACKLOG: '2' };
    expect(
      (await sm(['--db', path, 'add-turn', '--session', 's1', '--role', 'user', '--text', 'Dana moved to Oslo'], cheap))
        .code,
    ).toBe(0);
    const doctor = await sm(['--db', path, '--json', 'doctor'], cheap);
    expect(doctor.code).toBe(1);
    const jobs = doctor.json.find((c: { name: string }) => c.name === 'jobs');
    expect(jobs).toMatchObject({ ok: false });
    expect(jobs.detail).toMatch(
      /backlog 4, lag 90 s; accurate NER in cheap mode \(new turns get the fast pass only\), 1 turn waiting for it/,
    );
    expect(jobs.hint).toMatch(/ner\.max_backlog = 2/);
    expect((await sm(['--db', path, 'stats'], cheap)).stdout).toContain(
      'ner: cheap mode (fast pass only: the accurate queue is at ner.max_backlog), 1 turn waiting for the accurate pass',
    );
  });
});
