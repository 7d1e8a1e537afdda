// Several nodes on one Postgres database: two stores opened on the same database are
// two nodes (two pools, as two `sm serve` processes have). Jobs are claimed with SKIP LOCKED (no
// job twice, no claim waiting for another node), a scheduled task runs on one node per
// occurrence (advisory locks), change events cross to the other node through LISTEN/NOTIFY (on
// commit only, whatever their size, to its GraphQL subscribers with their per-user filters), and
// a database that goes away fails requests with DATABASE_UNAVAILABLE until it is back, when the
// nodes carry on by themselves. A real Debian Postgres server (missing binaries fail the test);
// the events also on PGlite, where two ports over one instance are the two nodes.
import { hostname } from 'node:os';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MemoryAction } from '../../client/src/index.ts';
import { claimJobs, enqueueJob, runScheduledOnce, type JobType } from '../../server/core/jobs/jobs.ts';
import {
  hearOtherNodes,
  onChange,
  publish,
  write,
  type ChangeEvent,
  type Store,
} from '../../server/core/kernel/store.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { buildApp } from '../../server/http/app.ts';
import { startScheduler } from '../../server/jobs/scheduler.ts';
import { startWorker } from '../../server/jobs/worker.ts';
import { openPostgresStore } from '../../server/storage/postgres/open-postgres.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';

const TYPE = 'test.node' as JobType;
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
let databases = 0;
const opened: Store[] = [];
beforeAll(async () => {
  server = await startPostgresServer();
});
afterAll(async () => {
  for (const store of opened) await closeStore(store);
  server?.stop();
});

/** Two nodes on one new database of `on`. */
async function twoNodes(on: PostgresServer = server): Promise<[Store, Store]> {
  const url = await on.createDatabase(`nodes_${++databases}`);
  const a = await openPostgresStore({ url, env: {} });
  const b = await openPostgresStore({ url, env: {} });
  opened.push(a, b);
  return [a, b];
}

/** Waits until `done()` holds, or fails after `ms`. */
async function until(done: () => boolean, ms = 10_000, what = 'the condition') {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick(20);
  }
}

/** A memory's deletion as decisions.ts publishes it: the row as it was rides along. */
function deletedMemory(userId: string, memoryId: number, content: string): ChangeEvent {
  const row = {
    id: memoryId,
    userId,
    agentId: null,
    kind: 'fact',
    layer: 'mid',
    status: 'active',
    content,
    contentKey: content.toLowerCase(),
    subject: null,
    slot: null,
    value: null,
    polarity: null,
    sessionId: null,
    hits: 0,
    accessCount: 0,
    score: 0.5,
    confidence: 1,
    confidenceBase: 1,
    decayRate: 0.01,
    importance: 0,
    tags: ['a'],
    createdAt: 1,
    eventAt: 1,
    lastSeenAt: 1,
    lastAccessedAt: null,
    validUntil: null,
    enrichedAt: null,
  };
  return {
    type: 'memory',
    action: 'deleted',
    memoryId,
    at: 1_795_000_000_123,
    detail: { reason: 'forgotten' },
    snapshot: row as never,
    userId,
    agentId: null,
  };
}

describe('jobs across nodes', () => {
  it('nodes claiming at once never claim the same job, and every job is claimed', async () => {
    const [a, b] = await twoNodes();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await enqueueJob(a, TYPE, { i })).id);
    const claimed: Record<string, number[]> = { a: [], b: [] };
    const claimer = async (store: Store, node: 'a' | 'b') => {
      for (
        let jobs = await claimJobs(store, 7, { types: [TYPE] }, node);
        jobs.length > 0;
        jobs = await claimJobs(store, 7, { types: [TYPE] }, node)
      ) {
        claimed[node]!.push(...jobs.map((job) => job.id));
      }
    };
    await Promise.all([claimer(a, 'a'), claimer(a, 'a'), claimer(b, 'b'), claimer(b, 'b')]);
    const all = [...claimed.a!, ...claimed.b!];
    expect(all).toHaveLength(300);
    expect(new Set(all)).toEqual(ids);
    expect(claimed.a!.length).toBeGreaterThan(0);
    expect(claimed.b!.length).toBeGreaterThan(0);
    // Each row says which node holds it, claimed once.
    const rows = await a.sql.all<{ lockedBy: string; n: number }>(
      "select locked_by as lockedBy, count(*) as n from jobs where status = 'running' and attempts = 1 group by locked_by order by locked_by",
    );
    expect(rows).toEqual([
      { lockedBy: 'a', n: claimed.a!.length },
      { lockedBy: 'b', n: claimed.b!.length },
    ]);
  });

  it("a claim skips the jobs another node's open transaction holds, without waiting for it or for the write lock", async () => {
    const [a, b] = await twoNodes();
    for (let i = 0; i < 10; i++) await enqueueJob(a, TYPE, { i });
    let elapsed = 0;
    const [heldByA, takenByB] = await write(a, async () => {
      // Inside A's write: A holds the database's write lock and its claimed rows until commit.
      const held = await claimJobs(a, 4, { types: [TYPE] }, 'a');
      const started = performance.now();
      const taken = await Promise.race([
        claimJobs(b, 10, { types: [TYPE] }, 'b'),
        tick(3_000).then(() => 'waited' as const),
      ]);
      elapsed = performance.now() - started;
      return [held, taken] as const;
    });
    expect(takenByB).not.toBe('waited');
    expect(elapsed).toBeLessThan(1_000);
    expect(heldByA.map((job) => job.id)).toEqual([1, 2, 3, 4]);
    expect((takenByB as { id: number }[]).map((job) => job.id)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it("workers on two nodes run each job once; the second node's worker wakes for jobs the first one queued", async () => {
    const [a, b] = await twoNodes();
    const hearing = hearOtherNodes(b);
    await hearing.ready;
    const runs: Record<string, string[]> = {};
    const handlers = (node: string) => ({
      [TYPE]: async (_store: Store, job: { id: number }) => {
        (runs[job.id] ??= []).push(node);
        await tick(20);
      },
    });
    // Polling an hour apart: a worker finds work only when woken by a job event.
    const workers = [
      startWorker(a, handlers('a'), { concurrency: 2, pollMs: 3_600_000 }),
      startWorker(b, handlers('b'), { concurrency: 2, pollMs: 3_600_000 }),
    ];
    try {
      await tick(200); // both idle, waiting
      for (let i = 0; i < 60; i++) await enqueueJob(a, TYPE, { i });
      await until(() => Object.keys(runs).length === 60, 20_000, '60 jobs run');
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await hearing.stop();
    }
    expect(Object.values(runs).every((nodes) => nodes.length === 1)).toBe(true);
    expect(Object.values(runs).filter(([node]) => node === 'b').length).toBeGreaterThan(0);
    expect(await a.sql.pluck("select count(*) from jobs where status <> 'done'")).toBe(0);
  });

  it("a running worker gives back the jobs of a process killed under them (on this host), and another node's worker runs them", async () => {
    const [a, b] = await twoNodes();
    const job = await enqueueJob(a, TYPE, {});
    // Node A's process, killed mid-job: its claim stays, under a pid that no longer exists.
    const [claimed] = await claimJobs(a, 1, { types: [TYPE] }, `${hostname()}:${2 ** 22 + 7}`);
    expect(claimed!.id).toBe(job.id);
    const ran: number[] = [];
    const worker = startWorker(
      b,
      { [TYPE]: async (_store: Store, j: { id: number }) => void ran.push(j.id) },
      { pollMs: 100, recoveryMs: 200 },
    );
    try {
      await until(() => ran.length > 0, 10_000, 'the job run by B');
    } finally {
      await worker.stop();
    }
    expect(ran).toEqual([job.id]);
    expect(await b.sql.get('select status, attempts, locked_by as lockedBy from jobs where id = ?', [job.id])).toEqual({
      status: 'done',
      attempts: 2,
      lockedBy: expect.stringMatching(new RegExp(`:${process.pid}$`)),
    });
  });
});

describe('a node on another host dying mid-job', () => {
  it('its job stays its own until worker.lease_s runs out (its death cannot be seen from here), then another node runs it', async () => {
    const url = await server.createDatabase(`nodes_${++databases}`);
    const config = { worker: { lease_s: 30 } };
    const a = await openPostgresStore({ url, env: {}, config });
    let now = Date.now();
    const b = await openPostgresStore({ url, env: {}, config, clock: { now: () => now } });
    opened.push(a, b);
    const job = await enqueueJob(a, TYPE, {});
    const [claimed] = await claimJobs(a, 1, { types: [TYPE] }, 'another-host:4242');
    expect(claimed!.lockedUntil).toBe(claimed!.updatedAt + 30_000);
    // B's worker gives back only the jobs of dead processes on its own host.
    const ran: number[] = [];
    const worker = startWorker(
      b,
      { [TYPE]: async (_store: Store, j: { id: number }) => void ran.push(j.id) },
      { pollMs: 50, recoveryMs: 50 },
    );
    try {
      await tick(500);
      expect(ran).toEqual([]);
      now += 31_000;
      await until(() => ran.length > 0, 10_000, 'the job run by B once the lease ran out');
    } finally {
      await worker.stop();
    }
    expect(ran).toEqual([job.id]);
    expect(await b.sql.get('select status, attempts from jobs where id = ?', [job.id])).toEqual({
      status: 'done',
      attempts: 2,
    });
  });
});

describe('scheduled tasks across nodes', () => {
  it('a task running on one node is left by the others until it ends; other tasks are not held up', async () => {
    const [a, b] = await twoNodes();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const onA = a.sql.exclusively('nightly', async () => {
      await gate;
      return 'a ran';
    });
    await tick(100);
    expect(await b.sql.exclusively('nightly', async () => 'b ran')).toBeUndefined();
    // A second run on the same node is refused too (a session lock alone would let it in).
    expect(await a.sql.exclusively('nightly', async () => 'a again')).toBeUndefined();
    expect(await b.sql.exclusively('weekly', async () => 'b ran weekly')).toBe('b ran weekly');
    release();
    expect(await onA).toBe('a ran');
    expect(await b.sql.exclusively('nightly', async () => 'b ran')).toBe('b ran');
    // A failed run lets go of the lock.
    await expect(a.sql.exclusively('nightly', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.sql.exclusively('nightly', async () => 'b after')).toBe('b after');
  });

  it('an occurrence done on one node is not done again by a node whose clock runs late; a failed one may be', async () => {
    const [a, b] = await twoNodes();
    const slot = Date.UTC(2026, 0, 2, 3);
    expect(await runScheduledOnce(a, 'decay', slot, async () => 'a')).toBe('a');
    expect(await runScheduledOnce(b, 'decay', slot, async () => 'b')).toBeUndefined();
    expect(await runScheduledOnce(b, 'decay', slot + 86_400_000, async () => 'b next day')).toBe('b next day');
    await expect(
      runScheduledOnce(a, 'decay', slot + 2 * 86_400_000, async () => Promise.reject(new Error('failed'))),
    ).rejects.toThrow('failed');
    expect(await runScheduledOnce(b, 'decay', slot + 2 * 86_400_000, async () => 'b retried')).toBe('b retried');
  });

  it("two nodes' schedulers firing every second run each occurrence once", async () => {
    const [a, b] = await twoNodes();
    const runs: { node: string; second: number }[] = [];
    const scheduler = (store: Store, node: string) =>
      startScheduler({
        tasks: { tick: '* * * * * *' },
        run: async () => {
          runs.push({ node, second: Math.floor(Date.now() / 1000) });
          await tick(100);
        },
        exclusively: (task, slot, fn) => runScheduledOnce(store, task, slot, fn),
      });
    const schedulers = [scheduler(a, 'a'), scheduler(b, 'b')];
    await tick(3_500);
    for (const s of schedulers) s.stop();
    await tick(300);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(runs.map((run) => run.second)).size).toBe(runs.length);
  });
});

/** Events across nodes, on a real server and on PGlite (two ports over one instance). */
const eventBackends = [
  { name: 'a Postgres server', nodes: () => twoNodes() },
  {
    name: 'PGlite',
    nodes: async (): Promise<[Store, Store]> => {
      const [{ PGlite }, { vector }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('@electric-sql/pglite-pgvector'),
      ]);
      const pglite = new PGlite({ extensions: { vector } });
      const a = await openPostgresStore({ url: 'pglite:', env: {}, pglite });
      const b = await openPostgresStore({ url: 'pglite:', env: {}, pglite });
      opened.push(b, a);
      return [a, b];
    },
  },
];

describe.each(eventBackends)('change events across nodes ($name)', ({ nodes }) => {
  it("a committed write's events reach the other node's listeners once; a rolled-back one's never; big ones whole", async () => {
    const [a, b] = await nodes();
    const hearings = [hearOtherNodes(a), hearOtherNodes(b)];
    await Promise.all(hearings.map((hearing) => hearing.ready));
    const onA: ChangeEvent[] = [];
    const onB: ChangeEvent[] = [];
    onChange(a, (event) => onA.push(event));
    onChange(b, (event) => onB.push(event));

    const turn: ChangeEvent = {
      type: 'turn',
      turnId: 7,
      sessionId: 's1',
      at: 1_795_000_000_123,
      userId: 'u1',
      agentId: null,
    };
    await write(a, async () => publish(a, turn));
    await expect(
      write(a, async () => {
        publish(a, { ...turn, turnId: 8 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // Past a notification's 8000 bytes, in characters of 1 to 4 bytes, with many small ones.
    const big = deletedMemory('u1', 42, `Ünïcödé fact 🦊 ${'x'.repeat(3_000)}${'é'.repeat(9_000)}🦊`);
    const many = Array.from(
      { length: 120 },
      (_, i): ChangeEvent => ({ type: 'entity', action: 'linked', entityId: i, at: 1, turnId: 7, userId: 'u2' }),
    );
    await write(a, async () => {
      publish(a, big);
      for (const event of many) publish(a, event);
    });
    // Outside a transaction (a consolidation starting), on its own.
    const started: ChangeEvent = { type: 'consolidation', sessionId: 's1', status: 'STARTED', at: 2, userId: 'u1' };
    publish(a, started);

    await until(() => onB.length >= 123, 10_000, "B hearing A's events");
    await tick(300);
    expect(onB).toEqual([turn, big, ...many, started]);
    // A heard its own events once, from itself.
    expect(onA).toEqual([turn, big, ...many, started]);
    await Promise.all(hearings.map((hearing) => hearing.stop()));
  });
});

describe("subscribers on another node's server", () => {
  it("a memory written through A's API reaches B's subscribers of that user only, deletions with the memory as it was", async () => {
    const [a, b] = await twoNodes();
    const apps = [a, b].map((store) =>
      buildApp({ store, host: '127.0.0.1', port: 0, jobs: false, logger: pino({ level: 'silent' }) }),
    );
    const [onA, onB] = await Promise.all(apps.map((app) => app.start()));
    const clientA = createClient({ url: onA!.url, webSocketImpl: WebSocket });
    const clientB = createClient({ url: onB!.url, webSocketImpl: WebSocket });
    try {
      const watched = clientB.forUser('alice').memoryEvents({})[Symbol.asyncIterator]();
      const other = clientB
        .forUser('bob')
        .memoryEvents({ actions: [MemoryAction.Deleted] })
        [Symbol.asyncIterator]();
      const first = watched.next();
      const bobs = other.next();
      // The subscription starts a moment after the request: written until one arrives.
      let event: Awaited<typeof first> | null = null;
      const content = `Alice keeps bees ${'🐝'.repeat(2_500)}`;
      let id = 0;
      for (let attempt = 0; !event && attempt < 50; attempt++) {
        id = (await clientA.forUser('alice').remember({ input: { content: `${content} ${attempt}` } })).remember.memory
          .id;
        event = await Promise.race([first, tick(200).then(() => null)]);
      }
      expect(event?.value?.memoryEvents).toMatchObject({
        action: 'CREATED',
        memory: { content: expect.stringMatching(/^Alice keeps bees/) },
      });
      // Deleted on A: B reads nothing (the row is gone), the event carries it (past 8000 bytes).
      const deletion = watched.next();
      await clientA.forUser('alice').forget({ id });
      const deleted = await Promise.race([deletion, tick(5_000).then(() => null)]);
      expect(deleted?.value?.memoryEvents).toMatchObject({
        action: 'DELETED',
        memoryId: id,
        memory: { id, content: expect.stringMatching(/^Alice keeps bees 🐝/) },
      });
      // Bob's subscriber heard none of Alice's.
      expect(await Promise.race([bobs, tick(300).then(() => 'nothing')])).toBe('nothing');
      await watched.return?.();
      // Bob's iterator waits for its next event (return() would queue behind it): closing the client ends it.
    } finally {
      await Promise.all([clientA.dispose(), clientB.dispose()]);
      await Promise.all(apps.map((app) => app.stop()));
    }
  });
});

describe('the database going away and coming back', () => {
  let own: PostgresServer;
  beforeAll(async () => {
    own = await startPostgresServer();
  });
  afterAll(() => own?.stop());

  it('requests fail with DATABASE_UNAVAILABLE (503, Retry-After) while it is down; requests and events work again once it is back', async () => {
    const [a, b] = await twoNodes(own);
    const app = buildApp({ store: a, host: '127.0.0.1', port: 0, jobs: false, logger: pino({ level: 'silent' }) });
    const { port } = await app.start();
    const hearing = hearOtherNodes(b);
    await hearing.ready;
    const onB: ChangeEvent[] = [];
    onChange(b, (event) => onB.push(event));
    const graphql = async (query: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as { data?: any; errors?: any[] },
      };
    };
    const remember = (content: string) =>
      graphql(`mutation { remember(input: { content: "${content}" }) { memory { id } } }`);
    // A worker polling all along: its failed claims are logged and tried again, never thrown.
    const ran: number[] = [];
    const worker = startWorker(
      a,
      { [TYPE]: async (_store: Store, job: { id: number }) => void ran.push(job.id) },
      { pollMs: 100 },
    );
    try {
      expect((await remember('before the outage')).body.errors).toBeUndefined();
      await until(() => onB.some((event) => event.type === 'memory'), 5_000, 'an event before the outage');
      // A load balancer asks /ready (the database answers) and /health (the process is up).
      const ask = async (path: string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.text(),
        };
      };
      expect((await ask('/ready')).status).toBe(200);

      own.halt();
      await tick(300); // the worker's claims fail meanwhile
      expect(await ask('/ready')).toMatchObject({
        status: 503,
        retryAfter: '5',
        body: expect.stringMatching(/database does not answer/),
      });
      expect((await ask('/health')).status).toBe(200);
      const during = await remember('during the outage');
      expect(during.status).toBe(503);
      expect(during.retryAfter).toBe('5');
      expect(during.body.errors?.[0]?.extensions).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryAfter: 5 });
      const read = await graphql('{ memories(first: 5) { edges { node { content } } } }');
      expect(read.status).toBe(503);
      expect(read.body.errors?.[0]?.extensions?.code).toBe('DATABASE_UNAVAILABLE');
      // REST answers the same code.
      const rest = await fetch(`http://127.0.0.1:${port}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: 's1', role: 'user', text: 'during the outage' }),
      });
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(rest.status).toBe(503);
      expect(((await rest.json()) as { error: { code: string } }).error.code).toBe('DATABASE_UNAVAILABLE');

      own.restart();
      const after = await remember('after the outage');
      expect(after.body.errors).toBeUndefined();
      expect(after.status).toBe(200);
      expect((await ask('/ready')).status).toBe(200);
      // B listens again by itself (backing off up to 5 s): a write on A reaches it, once it does.
      const probe: ChangeEvent = { type: 'turn', turnId: 1, sessionId: 'probe', at: 1, userId: 'u1' };
      const deadline = Date.now() + 15_000;
      const heard = () => onB.some((event) => event.type === 'turn' && event.sessionId === 'probe');
      while (!heard() && Date.now() < deadline) {
        await write(a, async () => publish(a, probe));
        await tick(250);
      }
      expect(onB).toContainEqual(probe);
      const contents = (
        await graphql('{ memories(first: 5) { edges { node { content } } } }')
      ).body.data.memories.edges.map((e: { node: { content: string } }) => e.node.content);
      expect(contents.sort()).toEqual(['after the outage', 'before the outage']);
      const job = await enqueueJob(b, TYPE, {});
      await until(() => ran.includes(job.id), 10_000, "A's worker running a job queued after the outage");
    } finally {
      await worker.stop();
      await hearing.stop();
      await app.stop();
    }
  });
});
