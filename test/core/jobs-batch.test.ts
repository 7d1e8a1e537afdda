// Background work that keeps up: the worker runs a batch handler's jobs many at a time (one bad
// job does not sink the others), accurate NER runs over many turns per job in its thread with
// the same result as turn by turn, duplicates run once, and past ner.max_backlog new turns get
// the fast pass only while a catch-up job brings their accurate pass later.
import { describe, expect, it, vi } from 'vitest';
import { entitiesForTurns } from '../../server/core/reads/entity-reads.ts';
import { enqueueJob, JobType, listJobs, queueLoad, type JobType as JobTypeName } from '../../server/core/jobs/jobs.ts';
import { compromiseEntities, loadCompromise } from '../../server/core/entities/ner/compromise-provider.ts';
import { deferredTurnCount, nerCheapMode } from '../../server/core/entities/ner/deferral.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { getStats } from '../../server/core/stats/stats.ts';
import { drainJobs, startWorker, type JobHandlers } from '../../server/jobs/worker.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { NER_BATCH } from '../../server/services/ner.ts';
import { compromiseInThread, stopNerThread } from '../../server/services/ner-thread.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore } from '../helpers/store.ts';

const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina'];
const PLACES = ['Lisbon', 'Paris', 'Boston', 'Kyoto'];
const textOf = (i: number) =>
  i % 2
    ? `I met ${NAMES[i % NAMES.length]} in ${PLACES[i % PLACES.length]} and we talked about gardens`
    : `${NAMES[i % NAMES.length]} said the concert in ${PLACES[i % PLACES.length]} was great`;

async function setup(config: Record<string, unknown> = {}) {
  const t = await testStore({ extractor: { mode: 'heuristic' }, ...config });
  const runtime = await createRuntime(t.store, {});
  const say = (i: number, sessionId = 's1') =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role: 'user', name: 'Sam', text: textOf(i) });
  const enriched = async () =>
    Number(await t.store.sql.pluck('select count(*) from turns where enriched_at is not null'));
  return { ...t, runtime, say, enriched };
}

describe('batch jobs', () => {
  it('claims due jobs of a batch type together; a failing batch is retried job by job, so only the bad job fails for good', async () => {
    const { store } = await setup();
    const type = 'test.batch' as JobTypeName;
    for (let i = 0; i < 250; i++) await enqueueJob(store, type, { n: i });
    const sizes: number[] = [];
    const handlers: JobHandlers = {
      [type]: {
        batch: 100,
        run: async (_store, jobs) => {
          sizes.push(jobs.length);
          if (jobs.some((job) => job.payload.n === 7)) throw new Error('bad job');
        },
      },
    };
    const first = await drainJobs(store, handlers, { concurrency: 2 });
    // 250 jobs in three runs; the run holding the bad job failed whole, once.
    expect(sizes.slice(0, 3)).toEqual([100, 100, 50]);
    expect(first).toEqual({ ran: 250, done: 150, failed: 100, dead: 0 });
    // Retried (after their backoff) one by one: 99 pass, the bad one fails again.
    for (const job of await listJobs(store, { status: 'pending', limit: 500 }))
      await store.sql.run('update jobs set run_at = 0 where id = ?', [job.id]);
    sizes.length = 0;
    const second = await drainJobs(store, handlers);
    expect(sizes.every((n) => n === 1)).toBe(true);
    expect(second).toEqual({ ran: 100, done: 99, failed: 1, dead: 0 });
    expect((await listJobs(store, { status: 'pending' })).map((j) => j.payload.n)).toEqual([7]);
  });

  it("the server's worker runs the NER jobs (in its thread) while turns arrive, and every turn gets its accurate pass", async () => {
    const { store, say, enriched } = await setup();
    const worker = startWorker(store, jobHandlers(await createRuntime(store, {})), { concurrency: 2 });
    try {
      for (let i = 0; i < 300; i++) await say(i, `s${Math.floor(i / 50)}`);
      const deadline = Date.now() + 30_000;
      while ((await enriched()) < 300 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await worker.stop();
    }
    expect(await enriched()).toBe(300);
    expect((await getStats(store, null)).jobs).toMatchObject({
      pending: 0,
      backlog: 0,
      nerDeferred: 0,
      nerCheapMode: false,
    });
  });
});

describe('accurate NER in batches', () => {
  it('finds per turn what compromise finds in each turn alone; a turn queued again, or stamped already, is not read again', async () => {
    const { store, runtime, say, setNow } = await setup();
    const turns = [];
    for (let i = 0; i < NER_BATCH + 20; i++) turns.push((await say(i)).turn);
    const stampOf = (id: number) => store.sql.pluck('select enriched_at from turns where id = ?', [id]);
    // One turn stamped meanwhile (as by the nightly enrichment): its pass is skipped.
    await store.sql.run('update turns set enriched_at = 1 where id = ?', [turns[5]!.id]);
    expect(await drainJobs(store, jobHandlers(runtime))).toMatchObject({
      ran: turns.length,
      done: turns.length,
      failed: 0,
    });
    expect(await stampOf(turns[5]!.id)).toBe(1);
    const nlp = await loadCompromise();
    const linked = await entitiesForTurns(
      store,
      turns.map((t) => t.id),
    );
    for (const turn of turns.filter((_, i) => i !== 5)) {
      const names = new Set(linked.get(turn.id)!.map((e) => e.name));
      // Every name compromise finds alone in the turn is linked to it (the batch parsed it in the thread, with others).
      for (const entity of compromiseEntities(nlp, turn.text)) expect(names, turn.text).toContain(entity.name);
    }
    // Queued again later: the job completes without reading the turn again.
    const stamped = await stampOf(turns[3]!.id);
    setNow(Number(stamped) + 60_000);
    await enqueueJob(store, JobType.NerAccurate, { turnId: turns[3]!.id, userId: 'default' });
    expect(await drainJobs(store, jobHandlers(runtime))).toMatchObject({ ran: 1, done: 1 });
    expect(await stampOf(turns[3]!.id)).toBe(stamped);
  });
});

describe('the NER thread', () => {
  it('when it dies under a batch, the batch fails and is retried: no turn is stamped without compromise', async () => {
    const { store, runtime, say, enriched } = await setup();
    for (let i = 0; i < 10; i++) await say(i);
    await stopNerThread(); // a fresh thread below, still loading compromise when it is stopped
    // Stopped once the batch has asked the thread: drainJobs claims its jobs asynchronously first,
    // so the thread is stopped when the batch's parses are posted (extractMany posts them before
    // it returns its promise).
    const { extractMany } = compromiseInThread;
    let asked!: () => void;
    const batchAsked = new Promise<void>((resolve) => (asked = resolve));
    const spy = vi.spyOn(compromiseInThread, 'extractMany').mockImplementation((texts) => {
      const parsed = extractMany!(texts);
      asked();
      return parsed;
    });
    const drained = drainJobs(store, jobHandlers(runtime));
    await batchAsked;
    await stopNerThread();
    expect(await drained).toEqual({ ran: 10, done: 0, failed: 10, dead: 0 });
    spy.mockRestore();
    expect(await enriched()).toBe(0);
    expect(new Set((await listJobs(store, { status: 'pending' })).map((j) => j.lastError))).toEqual(
      new Set([expect.stringMatching(/^NerUnavailable: the NER thread exited/)]),
    );
    // Retried (after the backoff) in a new thread: every turn gets its accurate pass.
    await store.sql.run("update jobs set run_at = 0 where status = 'pending'");
    expect(await drainJobs(store, jobHandlers(runtime))).toMatchObject({ ran: 10, done: 10, failed: 0 });
    expect(await enriched()).toBe(10);
  });
});

describe('cheap mode', () => {
  it('past ner.max_backlog, new turns get the fast pass only; the catch-up gives them their accurate pass later', async () => {
    const { store, runtime, say, enriched } = await setup({ ner: { max_backlog: 5 } });
    const turns = [];
    for (let i = 0; i < 12; i++) turns.push((await say(i)).turn);
    // Five queued, then cheap mode: no more NER jobs, one catch-up job for the seven after.
    const queued = await listJobs(store, { status: 'pending', limit: 100 });
    expect(queued.filter((j) => j.type === JobType.NerAccurate)).toHaveLength(5);
    expect(queued.filter((j) => j.type === JobType.NerCatchUp)).toHaveLength(1);
    expect((await queueLoad(store)).ner).toBe(5);
    expect(await nerCheapMode(store)).toBe(true);
    expect(await deferredTurnCount(store, null)).toBe(7);
    // The catch-up job belongs to no user: the whole file counts it.
    expect((await getStats(store, null)).jobs).toMatchObject({ nerDeferred: 7, nerCheapMode: true, backlog: 6 });
    expect((await getStats(store, DEFAULT_SPACE)).jobs).toMatchObject({ nerDeferred: 7, backlog: 5 });
    // Another user's counts hold none of them (the mode itself is the file's).
    expect((await getStats(store, { userId: 'someone-else', agentId: null })).jobs).toMatchObject({
      pending: 0,
      backlog: 0,
      lagSeconds: 0,
      byType: [],
      nerDeferred: 0,
      nerCheapMode: true,
    });
    // The fast pass ran on every turn: the speaker is linked at once.
    expect((await entitiesForTurns(store, [turns[11]!.id])).get(turns[11]!.id)!.map((e) => e.name)).toContain('Sam');

    await drainJobs(store, jobHandlers(runtime));
    expect(await enriched()).toBe(12);
    const last = (await entitiesForTurns(store, [turns[11]!.id])).get(turns[11]!.id)!.map((e) => e.name);
    expect(last).toEqual(expect.arrayContaining([NAMES[11 % NAMES.length], PLACES[11 % PLACES.length]]));
    expect((await getStats(store, null)).jobs).toMatchObject({ nerDeferred: 0, nerCheapMode: false, pending: 0 });
    // The deferral ended: the next turn is queued as usual.
    await say(12);
    expect((await listJobs(store, { status: 'pending' })).map((j) => j.type)).toEqual([JobType.NerAccurate]);
  });
});
