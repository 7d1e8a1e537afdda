// Two `sm serve` processes on one Postgres database, driven as apps drive
// them, through the generated client: a turn added on A is found by search on B; a WebSocket
// subscription on B hears a memory written on A; and when A is killed (kill -9) while it holds an
// LLM extraction job, B runs that job to the end, and every turn A acknowledged before dying is
// in the database. A real Debian Postgres server (missing binaries fail the test).
//
// Which node holds the job is made certain, not left to a race: B's clock is pinned an hour
// behind (SM_NOW), so a job A queues (due at A's now) is not yet due for B; A claims it. The job
// comes back to B as it would in production on one host: B's worker puts the jobs of a holder
// whose process is gone back in the queue (recoverJobs, every 10 s; the lease, 5 minutes and not
// configurable, is for holders on other hosts), stamped due at B's now, and B claims it.
import { hostname } from 'node:os';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MemoryAction, Role, type SymbiosisClient } from '../../client/src/index.ts';
import { firstEvent } from '../helpers/api-server.ts';
import { startOpenAiServer, type Behaviour } from '../helpers/openai-server.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';
import { smServe } from '../helpers/sm-serve.ts';

/** What the LLM says of the kayak turn: a fact no heuristic would word this way. */
const KAYAK_FACT = 'User keeps a sea kayak named Zephyr at the marina';
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Extraction requests about the kayak: the first (A's) hangs, holding A's job; the next (B's) is answered. */
const kayakExtractions = () => llm.requests.filter(isKayakExtraction).length;
const isKayakExtraction = (request: { body: any }) =>
  request.body?.messages?.[0]?.content?.startsWith('You maintain the long-term memory') &&
  JSON.stringify(request.body.messages.slice(1)).includes('kayak');

/** The LLM: extraction of the kayak turn as above; every other prompt (entities, consolidation) finds nothing. */
function answer(body: any): Behaviour {
  if (isKayakExtraction({ body })) {
    return kayakExtractions() === 1
      ? { delayMs: 60_000 }
      : { reply: JSON.stringify([{ action: 'create', content: KAYAK_FACT, importance: 0.8 }]) };
  }
  return {
    reply: String(body?.messages?.[0]?.content).startsWith('You find named entities') ? '{"entities":[]}' : '[]',
  };
}

let postgres: PostgresServer;
let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
let database: pg.Client;
let a: Awaited<ReturnType<typeof smServe>>;
let b: Awaited<ReturnType<typeof smServe>>;
let onA: SymbiosisClient;
let onB: SymbiosisClient;

beforeAll(async () => {
  postgres = await startPostgresServer();
  llm = await startOpenAiServer({ decide: answer });
  const url = await postgres.createDatabase('two_nodes');
  const env = {
    SM_DATABASE_URL: url,
    SM_DB: '',
    SM_CONFIG__EXTRACTOR__MODE: 'hybrid',
    SM_CONFIG__LLM__ENDPOINT: llm.url,
    SM_CONFIG__LLM__MODEL: 'test-model',
    SM_CONFIG__LLM__TIMEOUT_S: '120',
  };
  // A first: it migrates the new database; B opens it migrated.
  a = await smServe(null, ['--no-scheduler'], env);
  b = await smServe(null, ['--no-scheduler'], { ...env, SM_NOW: new Date(Date.now() - 3_600_000).toISOString() });
  onA = createClient({ url: a.url, webSocketImpl: WebSocket, userId: 'alice' });
  onB = createClient({ url: b.url, webSocketImpl: WebSocket, userId: 'alice' });
  database = new pg.Client({ connectionString: url });
  await database.connect();
}, 120_000);
afterAll(async () => {
  await Promise.all([onA, onB].map((client) => client?.dispose()));
  await Promise.all([a, b].map((server) => server?.stop()));
  await database?.end();
  await llm?.close();
  postgres?.stop();
});

describe('two sm serve processes on one Postgres database', () => {
  it('a turn added on A is found by search on B', { timeout: 60_000 }, async () => {
    const { addTurn } = await onA.addTurn({
      input: {
        sessionId: 'harbour',
        role: Role.User,
        text: 'The lighthouse keeper painted the boathouse turquoise',
        autoExtract: false,
      },
    });
    const hits = (await onB.search({ query: 'turquoise boathouse', limit: 5 })).search;
    expect(hits).toContainEqual(
      expect.objectContaining({
        kind: 'TURN',
        id: addTurn.turn.id,
        text: 'The lighthouse keeper painted the boathouse turquoise',
      }),
    );
  });

  it('a subscription on B receives the event of a memory written on A', { timeout: 60_000 }, async () => {
    const events = onB.memoryEvents({})[Symbol.asyncIterator]();
    const written: number[] = [];
    // Retried until the subscription listens (a write before that is not heard, and need not be).
    const event = await firstEvent(events, async (attempt) => {
      const { remember } = await onA.remember({ input: { content: `Alice collects old maps, number ${attempt}` } });
      written.push(remember.memory.id);
    });
    await events.return?.();
    expect(event.memoryEvents.action).toBe(MemoryAction.Created);
    expect(written).toContain(event.memoryEvents.memoryId);
    expect(event.memoryEvents.memory?.content).toMatch(/^Alice collects old maps, number \d+$/);
  });

  it('kill -9 of A while it holds an LLM extraction job: B finishes the job, and no turn A acknowledged is lost', {
    timeout: 120_000,
  }, async () => {
    const asked = kayakExtractions;
    const { addTurn: kayak } = await onA.addTurn({
      input: { sessionId: 'boats', role: Role.User, name: 'Alice', text: 'I keep my sea kayak Zephyr at the marina' },
    });
    const deadline = Date.now() + 20_000;
    while (asked() === 0 && Date.now() < deadline) await tick(50);
    expect(asked(), 'A asked the LLM').toBe(1);
    const held = await database.query(
      "select id, status, locked_by from jobs where type = 'extract.llm' and payload like $1",
      [`%"turnId":${kayak.turn.id}%`],
    );
    expect(held.rows).toEqual([{ id: expect.any(String), status: 'running', locked_by: `${hostname()}:${a.pid}` }]);
    const jobId = Number(held.rows[0].id);

    // Writes under way on A when it dies: each acknowledged one must be in the database.
    const acknowledged: number[] = [];
    let killed = false;
    const writer = (async () => {
      for (let n = 0; !killed; n++) {
        try {
          const { addTurn } = await onA.addTurn({
            input: { sessionId: 'diary', role: Role.User, text: `Diary line ${n}`, autoExtract: false },
          });
          acknowledged.push(addTurn.turn.id);
        } catch {
          return; // A is gone: this one was never acknowledged
        }
      }
    })();
    while (acknowledged.length < 20) await tick(10);
    await a.kill();
    killed = true;
    await writer;

    const stored = await database.query('select id from turns where id = any($1::bigint[])', [acknowledged]);
    expect(stored.rows.map((r) => Number(r.id)).sort((x, y) => x - y)).toEqual([...acknowledged].sort((x, y) => x - y));

    // B puts A's job back and runs it: the LLM is asked again (by B), its fact is stored, the job done.
    const finished = Date.now() + 60_000;
    let job = held.rows[0];
    while (Date.now() < finished) {
      job = (await database.query('select status, locked_by, attempts from jobs where id = $1', [jobId])).rows[0];
      if (job.status === 'done') break;
      await tick(200);
    }
    expect(job).toMatchObject({ status: 'done', locked_by: `${hostname()}:${b.pid}` });
    expect(asked()).toBe(2);
    const facts = await database.query("select content from memories where user_id = 'alice' and content = $1", [
      KAYAK_FACT,
    ]);
    expect(facts.rows).toHaveLength(1);
    const hits = (await onB.search({ query: 'kayak Zephyr marina', limit: 10 })).search.map((hit) => hit.text);
    expect(hits).toContain(KAYAK_FACT);
  });
});
