// HTTP load benchmark: `sm serve` spawned on a file of N synthetic turns (as bench:scale builds
// them), driven over HTTP by concurrent GraphQL clients from this process. Phases, one run:
//   1. memory just started and idle (after --idle-seconds without work);
//   2. sustained writes: W clients adding turns at a fixed total rate (open loop: each turn is
//      due at its time; a late client sends at once), the job backlog, its lag, the turns whose
//      accurate NER was deferred and the server's memory sampled each second; then how long the
//      queue and the deferred turns take to drain, and the server's CPU per turn;
//   3. closed loop: 1, 4, 16... clients searching as fast as answers come, then adding turns;
//   4. memory idle again once the queue has drained.
// Before them, on copies of the file as built: search at 1, 4, 16... clients with read workers off
// (server.read_workers 0) and on (--read-workers, default the server's own from 4 cores, cores - 1 at
// most 4, and 1 below, where the server starts none unless told),
// a server each, their phases alternating (`--reads-only` stops there).
// A 503 is retried after its Retry-After, as a well-behaved client does; every turn the server
// acknowledged is looked up in the file at the end (none may be missing).
//   npm run bench:load -- [--json] [--size 10000] [--rate 500] [--writers 16] [--seconds 20] [--clients 1,4,16] [--phase-seconds 8]
//                         [--config ner.max_backlog=100 ...] [--node-args="--heap-growing-percent=30"] [--idle-seconds 20]
//                         [--read-workers N] [--reads-only]
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closeStore, openStore } from '../server/db/open.ts';
import { optimizeSearchIndexes } from '../server/db/search-index.ts';
import { readWorkerCount } from '../server/services/read-pool.ts';
import { backlogReader, cpuOf, graphqlClient, memoryOf, runsBundle, startServer, type BacklogReader, type GraphqlClient, type Server } from './load-server.ts';
import { runMain } from './run-main.ts';
import { build } from './scale-store.ts';
import { rng, userName } from './synthetic.ts';
import { percentile, round } from './stats.ts';

const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina', 'Jon', 'Sam', 'Alex', 'Priya', 'Tomás'];
const PLACES = ['Lisbon', 'Paris', 'Boston', 'Kyoto', 'Berlin'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ADD_TURN = 'mutation($input: AddTurnInput!, $userId: String) { addTurn(input: $input, userId: $userId) { turn { id } } }';
const SEARCH = 'query($query: String!, $userId: String) { search(query: $query, limit: 10, userId: $userId) { kind id text score } }';

/** The first failure of the run, printed with the tables: a run whose requests fail measures nothing. */
let firstError: string | null = null;

type Outcome = { ms: number; ok: boolean; turnId: number | null; refused: number; error: string | null };

/**
 * One operation, retried after Retry-After while the server answers 503. `ms` runs from the
 * first try to the final answer; `refused` counts the 503s on the way.
 */
async function call(client: GraphqlClient, query: string, variables: Record<string, unknown>): Promise<Outcome> {
  const started = performance.now();
  let refused = 0;
  for (;;) {
    const reply = await client.post(query, variables);
    if (reply.status === 503) {
      refused++;
      await sleep(Math.max(0.05, reply.retryAfter ?? 1) * 1000);
      continue;
    }
    const ok = reply.status === 200 && !reply.body?.errors?.length;
    const turnId = (reply.body?.data?.addTurn?.turn?.id as number | undefined) ?? null;
    const error = ok ? null : `HTTP ${reply.status}: ${reply.body?.errors?.[0]?.message ?? 'no GraphQL answer'}`;
    if (error) firstError ??= error;
    return { ms: performance.now() - started, ok, turnId, refused, error };
  }
}

/** Sentences with names and places in them, so the NER job has names to find. */
function turnText(text: ReturnType<typeof build>, random: () => number) {
  const name = NAMES[Math.floor(random() * NAMES.length)]!;
  const place = PLACES[Math.floor(random() * PLACES.length)]!;
  return random() < 0.5 ? `I met ${name} in ${place} and we talked about ${text.sentence(4, 14)}` : `${name} said the ${text.word()} ${text.sentence(4, 14)} was great`;
}

type Sample = { second: number; acked: number; refused: number; backlog: number; nerBacklog: number; lagSeconds: number; deferred: number; rssMB: number | null };

type Stat = { p50: number; p95: number; p99: number };
const stat = (values: number[]): Stat => ({ p50: round(percentile(values, 50), 2), p95: round(percentile(values, 95), 2), p99: round(percentile(values, 99), 2) });

type Context = {
  server: Server;
  client: GraphqlClient;
  reader: BacklogReader;
  nextTurn: (client: number) => { input: Record<string, unknown>; userId: string };
  acked: number[];
};

/** W writers at `rate` turns/s in total for `seconds`, sampled every second; then the drain. */
async function sustainedWrites(ctx: Context, writers: number, rate: number, seconds: number, drainTimeoutSeconds: number) {
  const samples: Sample[] = [];
  const latencies: number[] = [];
  let acked = 0;
  let refused = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  let stopped = false;
  const sampler = (async () => {
    for (let second = 1; !stopped; second++) {
      await sleep(started + second * 1000 - performance.now());
      samples.push({ second, acked, refused, ...ctx.reader.read(), rssMB: memoryOf(ctx.server.pid)?.rssMB ?? null });
    }
  })();
  let lastAck = started;
  const cpuBefore = cpuOf(ctx.server.pid);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let k = 0; ; k++) {
        const due = started + ((k * writers + w) / rate) * 1000;
        if (due >= end) return;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const { input, userId } = ctx.nextTurn(w);
        const outcome = await call(ctx.client, ADD_TURN, { input, userId });
        refused += outcome.refused;
        if (!outcome.ok || outcome.turnId === null) {
          failed++;
          continue;
        }
        acked++;
        lastAck = performance.now();
        ctx.acked.push(outcome.turnId);
        // From when the turn was due: a server that falls behind shows as latency, not as fewer samples.
        latencies.push(lastAck - Math.min(due, lastAck - outcome.ms));
      }
    }),
  );
  const writeSeconds = (lastAck - started) / 1000;
  const atEnd = ctx.reader.read();
  // The drain: sampled on, until the queue is empty.
  let drainSeconds: number | null = null;
  const drainStart = performance.now();
  while (performance.now() - drainStart < drainTimeoutSeconds * 1000) {
    const now = ctx.reader.read();
    if (now.backlog === 0 && now.deferred === 0) {
      drainSeconds = round((performance.now() - drainStart) / 1000, 1);
      break;
    }
    await sleep(250);
  }
  stopped = true;
  await sampler;
  const cpuAfter = cpuOf(ctx.server.pid);
  // CPU per acknowledged turn, the writes and all the background work they caused (to the drain):
  // unlike throughput, it hardly moves when other work shares the machine.
  const cpuMsPerTurn =
    cpuBefore && cpuAfter ? { main: round(((cpuAfter.main - cpuBefore.main) * 1000) / acked, 2), all: round(((cpuAfter.all - cpuBefore.all) * 1000) / acked, 2) } : null;
  const peak = samples.reduce((m, s) => ({ backlog: Math.max(m.backlog, s.backlog), lag: Math.max(m.lag, s.lagSeconds) }), { backlog: 0, lag: 0 });
  return {
    writers,
    offeredPerSecond: rate,
    seconds,
    acked,
    refused,
    failed,
    turnsPerSecond: round(acked / writeSeconds, 1),
    /** From each turn's due time to its acknowledgement. */
    latencyMs: stat(latencies),
    backlogAtEnd: atEnd.backlog,
    lagAtEndSeconds: atEnd.lagSeconds,
    peakBacklog: peak.backlog,
    peakLagSeconds: peak.lag,
    drainSeconds,
    /** Turns whose accurate NER was deferred (cheap mode) and not caught up when the writes ended. */
    deferredAtEnd: atEnd.deferred,
    cpuMsPerTurn,
    samples,
  };
}

/** `clients` closed-loop clients doing `op` for `seconds`: throughput and latency. */
async function closedLoop(ctx: Context, op: 'search' | 'addTurn', clients: number, seconds: number, queries: string[]) {
  const latencies: number[] = [];
  let refused = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const outcome =
          op === 'search'
            ? await call(ctx.client, SEARCH, { query: queries[(i * clients + c) % queries.length], userId: userName(c % 16, 16) })
            : await call(ctx.client, ADD_TURN, ctx.nextTurn(c));
        refused += outcome.refused;
        if (!outcome.ok) failed++;
        else latencies.push(outcome.ms);
        if (outcome.turnId !== null) ctx.acked.push(outcome.turnId);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const memory = memoryOf(ctx.server.pid);
  return { op, clients, answered: latencies.length, requestsPerSecond: round(latencies.length / elapsed, 1), latencyMs: stat(latencies), refused, failed, backlogAfter: ctx.reader.read().backlog, rssMB: memory?.rssMB ?? null, peakMB: memory?.peakMB ?? null };
}

const READ_WORKERS = '{ stats { readWorkers { ready served inProcess } } }';

type WorkerCounts = { ready: number; served: number; inProcess: number } | null;

async function workerCounts(client: GraphqlClient): Promise<WorkerCounts> {
  return ((await client.post(READ_WORKERS, {})).body?.data?.stats?.readWorkers as WorkerCounts) ?? null;
}

/**
 * A server with `workers` read workers on `path`, started (workers up) and warmed up; `measure`
 * gives, for `n` closed-loop clients searching, requests/s, latency, the share the workers
 * answered, the server's CPU per search (all threads) and its memory.
 */
async function readServer(path: string, env: Record<string, string>, nodeArgs: string[], workers: number, maxClients: number, queries: string[]) {
  const server = await startServer(path, { ...env, SM_CONFIG__SERVER__READ_WORKERS: String(workers) }, nodeArgs);
  const client = graphqlClient(server.url, maxClients);
  const reader = backlogReader(path);
  const ctx: Context = { server, client, reader, acked: [], nextTurn: () => ({ input: {}, userId: '' }) };
  const close = async () => {
    reader.close();
    client.close();
    await server.stop();
  };
  // Reads at once start the workers (a lone one runs on the main thread), which end after 30 s without any.
  const ready = async () => {
    for (const until = performance.now() + 60_000; workers > 0 && ((await workerCounts(client))?.ready ?? 0) < workers; ) {
      if (performance.now() > until) throw new Error(`${workers} read workers not ready in 60 s`);
      await Promise.all([0, 1].map((i) => call(client, SEARCH, { query: queries[i], userId: userName(i, 16) })));
      await sleep(100);
    }
  };
  try {
    await ready();
  } catch (error) {
    await close();
    throw error;
  }
  // With the workers loaded, before any search has warmed a cache.
  const startedMB = memoryOf(server.pid)?.rssMB ?? null;
  for (let i = 0; i < 100; i++) await call(client, SEARCH, { query: queries[i % queries.length], userId: userName(i % 16, 16) });
  return {
    workers,
    startedMB,
    close,
    async measure(n: number, seconds: number) {
      await ready();
      const before = { counts: await workerCounts(client), cpu: cpuOf(server.pid) };
      const row = await closedLoop(ctx, 'search', n, seconds, queries);
      const after = { counts: await workerCounts(client), cpu: cpuOf(server.pid) };
      return {
        ...row,
        workers,
        byWorkers: before.counts && after.counts ? after.counts.served - before.counts.served : 0,
        inProcess: before.counts && after.counts ? after.counts.inProcess - before.counts.inProcess : row.answered,
        cpuMsPerSearch: before.cpu && after.cpu && row.answered > 0 ? round(((after.cpu.all - before.cpu.all) * 1000) / row.answered, 2) : null,
      };
    },
  };
}

/**
 * Search with read workers off, then on, each server on its own copy of the file (never two
 * writers on one), both up at once: the phases alternate per client count (off first, then on
 * first, ...), so the machine's load drifting over the run weighs on both alike.
 */
async function readComparison(path: string, env: Record<string, string>, nodeArgs: string[], workers: number, clients: number[], seconds: number, queries: string[]) {
  const servers: Awaited<ReturnType<typeof readServer>>[] = [];
  try {
    for (const [k, n] of [0, workers].entries()) {
      const copy = `${path}.reads-${k}.db`;
      copyFileSync(path, copy);
      servers.push(await readServer(copy, env, nodeArgs, n, Math.max(...clients), queries));
    }
    const rows: Awaited<ReturnType<(typeof servers)[number]['measure']>>[][] = [[], []];
    for (const [i, n] of clients.entries()) for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) rows[k]!.push(await servers[k]!.measure(n, seconds));
    return servers.map((server, k) => ({ workers: server.workers, startedMB: server.startedMB, rows: rows[k]! }));
  } finally {
    for (const server of servers) await server.close();
  }
}

export type LoadOptions = {
  size: number;
  rate: number;
  writers: number;
  seconds: number;
  clients: number[];
  phaseSeconds: number;
  /** Config for the server, as SM_CONFIG__ variables (`ner.max_backlog=100` -> SM_CONFIG__NER__MAX_BACKLOG=100). */
  config?: Record<string, string>;
  /** Node flags for the server process (to compare V8 settings). */
  nodeArgs?: string[];
  /**
   * Seconds the server is left alone before its memory counts as idle (V8's memory reducer gives
   * back the start-up garbage after about 10 s without work), and again after the load, plus the
   * 15 s more the NER thread waits before it ends. 0 measures at once.
   */
  idleSeconds?: number;
  /** Read workers for the "on" half of the read comparison (default: the server's own default here). */
  readWorkers?: number;
  /** Only the read comparison. */
  readsOnly?: boolean;
};

export async function benchLoad(options: LoadOptions) {
  const idleSeconds = options.idleSeconds ?? 20;
  const loadAtStart = loadavg().map((n) => round(n, 2));
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-load-'));
  const path = join(dir, 'load.db');
  const random = rng(7);
  const store = await openStore({ path, env: {} });
  const text = build(store, options.size, random, 16);
  optimizeSearchIndexes(store.sqlite);
  await closeStore(store);
  const queries = Array.from({ length: 500 }, () => `What did ${NAMES[Math.floor(random() * NAMES.length)]} say about ${text.sentence(2, 5)}?`);
  const bundle = runsBundle();
  const env = Object.fromEntries(Object.entries(options.config ?? {}).map(([key, value]) => [`SM_CONFIG__${key.replaceAll('.', '__').toUpperCase()}`, value]));
  const readWorkers = options.readWorkers ?? Math.max(1, readWorkerCount(undefined));
  let reads: Awaited<ReturnType<typeof readComparison>>;
  try {
    reads = await readComparison(path, env, options.nodeArgs ?? [], readWorkers, options.clients, options.phaseSeconds, queries);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const readMachine = { cores: availableParallelism(), loadAverageAtStart: loadAtStart, loadAverage: loadavg().map((n) => round(n, 2)) };
  if (options.readsOnly) {
    rmSync(dir, { recursive: true, force: true });
    return { machine: readMachine, server: bundle ? 'sm serve (bundle)' : 'sm serve (tsx)', size: options.size, reads, firstError };
  }
  const server = await startServer(path, env, options.nodeArgs ?? []);
  const client = graphqlClient(server.url, Math.max(options.writers, ...options.clients));
  const reader = backlogReader(path);
  const turnsSent = new Map<number, number>();
  const ctx: Context = {
    server,
    client,
    reader,
    acked: [],
    // Each client is a user of its own, in sessions of 10 turns.
    nextTurn: (c) => {
      const n = turnsSent.get(c) ?? 0;
      turnsSent.set(c, n + 1);
      return { userId: userName(c % 16, 16), input: { sessionId: `load-${c}-${Math.floor(n / 10)}`, role: 'USER', name: NAMES[c % NAMES.length], text: turnText(text, random) } };
    },
  };
  try {
    await sleep(Math.min(2, idleSeconds) * 1000);
    const started = memoryOf(server.pid);
    await sleep(Math.max(0, idleSeconds - 2) * 1000);
    const idle = memoryOf(server.pid);
    // Warm-up: statements prepared, code compiled, as in a server that has run for a while.
    for (let i = 0; i < 30; i++) await call(client, SEARCH, { query: queries[i], userId: userName(i % 16, 16) });
    const sustained = await sustainedWrites(ctx, options.writers, options.rate, options.seconds, 180);
    const closed = [];
    for (const op of ['search', 'addTurn'] as const) for (const clients of options.clients) closed.push(await closedLoop(ctx, op, clients, options.phaseSeconds, queries));
    const justAfter = memoryOf(server.pid);
    // Idle means no work left: the queue drained (the last addTurn phase left a backlog), then the wait.
    for (const until = performance.now() + 180_000; reader.read().backlog > 0 && performance.now() < until; ) await sleep(250);
    await sleep(idleSeconds === 0 ? 0 : (idleSeconds + 15) * 1000);
    const after = memoryOf(server.pid);
    const stored = reader.stored(ctx.acked);
    return {
      machine: { cores: availableParallelism(), loadAverageAtStart: loadAtStart, loadAverage: loadavg().map((n) => round(n, 2)) },
      server: bundle ? 'sm serve (bundle)' : 'sm serve (tsx)',
      size: options.size,
      reads,
      readMachine,
      idleSeconds,
      memoryMB: { started: started?.rssMB ?? null, idle: idle?.rssMB ?? null, justAfterLoad: justAfter?.rssMB ?? null, idleAfterLoad: after?.rssMB ?? null, peak: after?.peakMB ?? null },
      sustained,
      closedLoop: closed,
      acknowledged: { turns: ctx.acked.length, inFile: stored, lost: ctx.acked.length - stored },
      firstError,
    };
  } finally {
    reader.close();
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Result = Awaited<ReturnType<typeof benchLoad>>;
type Reads = Result['reads'];

const three = (x: Stat) => `${x.p50} / ${x.p95} / ${x.p99}`;

function formatReads(reads: Reads, machine: { cores: number; loadAverageAtStart: number[]; loadAverage: number[] }): string[] {
  const [off, on] = reads;
  const ratio = (i: number) => (off!.rows[i]!.requestsPerSecond > 0 ? round(on!.rows[i]!.requestsPerSecond / off!.rows[i]!.requestsPerSecond, 2) : '–');
  return [
    `Search with read workers off and on (${machine.cores} cores; load average ${machine.loadAverageAtStart.join(' ')} at start, ${machine.loadAverage.join(' ')} after; the clients share the machine):`,
    '',
    '| read workers | clients | requests/s | p50 / p95 / p99 ms | answered by workers / in-process | server CPU ms / search | RSS MB after (peak) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...reads.flatMap((phase) =>
      phase.rows.map((c) => `| ${phase.workers} | ${c.clients} | ${c.requestsPerSecond} | ${three(c.latencyMs)} | ${c.byWorkers} / ${c.inProcess} | ${c.cpuMsPerSearch ?? '–'} | ${c.rssMB ?? '–'} (${c.peakMB ?? '–'}) |`),
    ),
    '',
    `| clients | off: requests/s, p95 ms | on (${on!.workers} workers): requests/s, p95 ms | requests/s on / off |`,
    '| --- | --- | --- | --- |',
    ...off!.rows.map((c, i) => `| ${c.clients} | ${c.requestsPerSecond}, ${c.latencyMs.p95} | ${on!.rows[i]!.requestsPerSecond}, ${on!.rows[i]!.latencyMs.p95} | ${ratio(i)} |`),
    '',
    `RSS once up, before the searches: ${reads.map((p) => `${p.startedMB ?? '–'} MB with ${p.workers} workers`).join(', ')}`,
  ];
}

export function formatLoad(result: Result): string {
  if (!result.sustained) return [...formatReads(result.reads, result.machine), ...(result.firstError ? [`first failure: ${result.firstError}`] : [])].join('\n');
  const r = result as Required<Result>;
  const s = r.sustained;
  const every = Math.max(1, Math.ceil(s.samples.length / 15));
  return [
    `machine: ${r.machine.cores} cores, load average ${r.machine.loadAverageAtStart.join(' ')} at start, ${r.machine.loadAverage.join(' ')} at end; ${r.server} on ${r.size.toLocaleString('en')} turns + facts (16 users)`,
    '',
    '| server memory | RSS MB |',
    '| --- | --- |',
    `| just started (2 s) | ${r.memoryMB.started ?? '–'} |`,
    `| idle (${r.idleSeconds} s after start) | ${r.memoryMB.idle ?? '–'} |`,
    `| peak under load (VmHWM) | ${r.memoryMB.peak ?? '–'} |`,
    `| when the load ended | ${r.memoryMB.justAfterLoad ?? '–'} |`,
    `| idle again (${r.idleSeconds === 0 ? 0 : r.idleSeconds + 15} s after the queue drained) | ${r.memoryMB.idleAfterLoad ?? '–'} |`,
    '',
    `Sustained writes: ${s.writers} clients offering ${s.offeredPerSecond} turns/s for ${s.seconds} s`,
    '',
    '| turns/s acked | latency p50 / p95 / p99 ms | 503s | failed | backlog at end | lag at end s | peak backlog | peak lag s | NER deferred at end | drained in s | server CPU ms / turn (main thread) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${s.turnsPerSecond} | ${three(s.latencyMs)} | ${s.refused} | ${s.failed} | ${s.backlogAtEnd} | ${s.lagAtEndSeconds} | ${s.peakBacklog} | ${s.peakLagSeconds} | ${s.deferredAtEnd} | ${s.drainSeconds ?? 'not in 180 s'} | ${s.cpuMsPerTurn ? `${s.cpuMsPerTurn.all} (${s.cpuMsPerTurn.main})` : '–'} |`,
    '',
    '| second | turns acked | backlog (ner.accurate) | lag s | NER deferred | RSS MB |',
    '| --- | --- | --- | --- | --- | --- |',
    ...s.samples
      .filter((x, i) => i % every === every - 1 || i === s.samples.length - 1)
      .map((x) => `| ${x.second} | ${x.acked} | ${x.backlog} (${x.nerBacklog}) | ${x.lagSeconds} | ${x.deferred} | ${x.rssMB ?? '–'} |`),
    '',
    'Closed loop (each client sends its next request when the last is answered):',
    '',
    '| operation | clients | requests/s | p50 / p95 / p99 ms | 503s | failed | backlog after | RSS MB after (peak so far) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.closedLoop.map((c) => `| ${c.op} | ${c.clients} | ${c.requestsPerSecond} | ${three(c.latencyMs)} | ${c.refused} | ${c.failed} | ${c.backlogAfter} | ${c.rssMB ?? '–'} (${c.peakMB ?? '–'}) |`),
    '',
    `acknowledged turns: ${r.acknowledged.turns}, in the file: ${r.acknowledged.inFile}, lost: ${r.acknowledged.lost}`,
    '',
    ...formatReads(r.reads, r.readMachine),
    ...(r.firstError ? [`first failure: ${r.firstError}`] : []),
  ].join('\n');
}

const USAGE =
  'usage: npm run bench:load -- [--json] [--size 10000] [--rate 500] [--writers 16] [--seconds 20] [--clients 1,4,16] [--phase-seconds 8] [--config key=value ...] [--node-args="flags"] [--idle-seconds 20] [--read-workers N] [--reads-only]';

async function main() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      size: { type: 'string', default: '10000' },
      rate: { type: 'string', default: '500' },
      writers: { type: 'string', default: '16' },
      seconds: { type: 'string', default: '20' },
      clients: { type: 'string', default: '1,4,16' },
      'phase-seconds': { type: 'string', default: '8' },
      config: { type: 'string', multiple: true, default: [] },
      'node-args': { type: 'string', default: '' },
      'idle-seconds': { type: 'string', default: '20' },
      'read-workers': { type: 'string' },
      'reads-only': { type: 'boolean', default: false },
    },
  });
  const config = Object.fromEntries(values.config.map((pair) => pair.split('=', 2) as [string, string]));
  const idleSeconds = Number(values['idle-seconds']);
  const numbers = { size: Number(values.size), rate: Number(values.rate), writers: Number(values.writers), seconds: Number(values.seconds), phaseSeconds: Number(values['phase-seconds']) };
  const clients = values.clients.split(',').map(Number);
  if (Object.values(numbers).some((n) => !Number.isFinite(n) || n <= 0) || clients.some((n) => !Number.isInteger(n) || n < 1) || numbers.size < 16 || values.config.some((pair) => !pair.includes('=')) || !(idleSeconds >= 0)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const readWorkers = values['read-workers'] === undefined ? undefined : Number(values['read-workers']);
  if (readWorkers !== undefined && !(Number.isInteger(readWorkers) && readWorkers >= 1)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const result = await benchLoad({ ...numbers, clients, config, idleSeconds, readWorkers, readsOnly: values['reads-only'], nodeArgs: values['node-args'].split(' ').filter(Boolean) });
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${formatLoad(result)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
