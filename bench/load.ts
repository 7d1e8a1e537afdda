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
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { optimizeSearchIndexes } from '../server/storage/sqlite/search-index.ts';
import { readWorkerCount } from '../server/services/read-pool.ts';
import { call, closedLoop, firstFailure, SEARCH, sleep, type Context, type Stat } from './load-clients.ts';
import { formatReads, readComparison } from './load-reads.ts';
import { backlogReader, graphqlClient, memoryOf, runsBundle, startServer } from './load-server.ts';
import { runMain } from './run-main.ts';
import { NAMES, sustainedWrites, turnText } from './load-writes.ts';
import { build } from './scale-store.ts';
import { rng, userName } from './synthetic.ts';
import { round } from './stats.ts';

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

/** The file the servers open, of `size` synthetic turns and facts (16 users), and 500 questions about it. */
async function buildFile(size: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-load-'));
  const path = join(dir, 'load.db');
  const random = rng(7);
  const store = await openStore({ path, env: {} });
  const text = build(store, size, random, 16);
  optimizeSearchIndexes(store.sqlite);
  await closeStore(store);
  const queries = Array.from(
    { length: 500 },
    () => `What did ${NAMES[Math.floor(random() * NAMES.length)]} say about ${text.sentence(2, 5)}?`,
  );
  return { dir, path, random, text, queries };
}

type LoadFile = Awaited<ReturnType<typeof buildFile>>;

const machineNow = (loadAverageAtStart: number[]) => ({
  cores: availableParallelism(),
  loadAverageAtStart,
  loadAverage: loadavg().map((n) => round(n, 2)),
});

/** Config as SM_CONFIG__ variables (`ner.max_backlog=100` -> SM_CONFIG__NER__MAX_BACKLOG=100). */
const configEnv = (config: Record<string, string> = {}) =>
  Object.fromEntries(
    Object.entries(config).map(([key, value]) => [`SM_CONFIG__${key.replaceAll('.', '__').toUpperCase()}`, value]),
  );

/** The clients' shared state: each client is a user of its own, in sessions of 10 turns. */
function loadContext(parts: Pick<Context, 'server' | 'client' | 'reader'>, file: LoadFile): Context {
  const turnsSent = new Map<number, number>();
  return {
    ...parts,
    acked: [],
    nextTurn: (c) => {
      const n = turnsSent.get(c) ?? 0;
      turnsSent.set(c, n + 1);
      return {
        userId: userName(c % 16, 16),
        input: {
          sessionId: `load-${c}-${Math.floor(n / 10)}`,
          role: 'USER',
          name: NAMES[c % NAMES.length],
          text: turnText(file.text, file.random),
        },
      };
    },
  };
}

/** Phases 1 to 4 on one server: memory idle, sustained writes, closed loops, memory idle again. */
async function loadPhases(ctx: Context, options: LoadOptions, queries: string[], idleSeconds: number) {
  const { server, client, reader } = ctx;
  await sleep(Math.min(2, idleSeconds) * 1000);
  const started = memoryOf(server.pid);
  await sleep(Math.max(0, idleSeconds - 2) * 1000);
  const idle = memoryOf(server.pid);
  // Warm-up: statements prepared, code compiled, as in a server that has run for a while.
  for (let i = 0; i < 30; i++) await call(client, SEARCH, { query: queries[i], userId: userName(i % 16, 16) });
  const sustained = await sustainedWrites(ctx, {
    writers: options.writers,
    rate: options.rate,
    seconds: options.seconds,
    drainTimeoutSeconds: 180,
  });
  const closed = [];
  for (const op of ['search', 'addTurn'] as const)
    for (const clients of options.clients)
      closed.push(await closedLoop(ctx, op, clients, options.phaseSeconds, queries));
  const justAfter = memoryOf(server.pid);
  // Idle means no work left: the queue drained (the last addTurn phase left a backlog), then the wait.
  for (const until = performance.now() + 180_000; reader.read().backlog > 0 && performance.now() < until; )
    await sleep(250);
  await sleep(idleSeconds === 0 ? 0 : (idleSeconds + 15) * 1000);
  const after = memoryOf(server.pid);
  const stored = reader.stored(ctx.acked);
  return {
    memoryMB: {
      started: started?.rssMB ?? null,
      idle: idle?.rssMB ?? null,
      justAfterLoad: justAfter?.rssMB ?? null,
      idleAfterLoad: after?.rssMB ?? null,
      peak: after?.peakMB ?? null,
    },
    sustained,
    closedLoop: closed,
    acknowledged: { turns: ctx.acked.length, inFile: stored, lost: ctx.acked.length - stored },
  };
}

type Machine = ReturnType<typeof machineNow>;
/** What a run measured; with `readsOnly`, the read comparison alone. */
export type LoadResult = {
  machine: Machine;
  server: string;
  size: number;
  reads: Awaited<ReturnType<typeof readComparison>>;
  firstError: string | null;
} & Partial<{ readMachine: Machine; idleSeconds: number } & Awaited<ReturnType<typeof loadPhases>>>;

export async function benchLoad(options: LoadOptions): Promise<LoadResult> {
  const idleSeconds = options.idleSeconds ?? 20;
  const loadAtStart = loadavg().map((n) => round(n, 2));
  const file = await buildFile(options.size);
  const serverName = runsBundle() ? 'sm serve (bundle)' : 'sm serve (tsx)';
  const env = configEnv(options.config);
  const nodeArgs = options.nodeArgs ?? [];
  const readWorkers = options.readWorkers ?? Math.max(1, readWorkerCount(undefined));
  let reads: Awaited<ReturnType<typeof readComparison>>;
  try {
    reads = await readComparison({
      path: file.path,
      env,
      nodeArgs,
      workers: readWorkers,
      clients: options.clients,
      seconds: options.phaseSeconds,
      queries: file.queries,
    });
  } catch (error) {
    rmSync(file.dir, { recursive: true, force: true });
    throw error;
  }
  const readMachine = machineNow(loadAtStart);
  if (options.readsOnly) {
    rmSync(file.dir, { recursive: true, force: true });
    return { machine: readMachine, server: serverName, size: options.size, reads, firstError: firstFailure() };
  }
  const server = await startServer(file.path, env, nodeArgs);
  const client = graphqlClient(server.url, Math.max(options.writers, ...options.clients));
  const reader = backlogReader(file.path);
  const ctx = loadContext({ server, client, reader }, file);
  try {
    const phases = await loadPhases(ctx, options, file.queries, idleSeconds);
    return {
      machine: machineNow(loadAtStart),
      server: serverName,
      size: options.size,
      reads,
      readMachine,
      idleSeconds,
      ...phases,
      firstError: firstFailure(),
    };
  } finally {
    reader.close();
    client.close();
    await server.stop();
    rmSync(file.dir, { recursive: true, force: true });
  }
}

const three = (x: Stat) => `${x.p50} / ${x.p95} / ${x.p99}`;

export function formatLoad(result: LoadResult): string {
  if (!result.sustained)
    return [
      ...formatReads(result.reads, result.machine),
      ...(result.firstError ? [`first failure: ${result.firstError}`] : []),
    ].join('\n');
  const r = result as Required<LoadResult>;
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
      .filter((_x, i) => i % every === every - 1 || i === s.samples.length - 1)
      .map(
        (x) =>
          `| ${x.second} | ${x.acked} | ${x.backlog} (${x.nerBacklog}) | ${x.lagSeconds} | ${x.deferred} | ${x.rssMB ?? '–'} |`,
      ),
    '',
    'Closed loop (each client sends its next request when the last is answered):',
    '',
    '| operation | clients | requests/s | p50 / p95 / p99 ms | 503s | failed | backlog after | RSS MB after (peak so far) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.closedLoop.map(
      (c) =>
        `| ${c.op} | ${c.clients} | ${c.requestsPerSecond} | ${three(c.latencyMs)} | ${c.refused} | ${c.failed} | ${c.backlogAfter} | ${c.rssMB ?? '–'} (${c.peakMB ?? '–'}) |`,
    ),
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
  const numbers = {
    size: Number(values.size),
    rate: Number(values.rate),
    writers: Number(values.writers),
    seconds: Number(values.seconds),
    phaseSeconds: Number(values['phase-seconds']),
  };
  const clients = values.clients.split(',').map(Number);
  if (
    Object.values(numbers).some((n) => !Number.isFinite(n) || n <= 0) ||
    clients.some((n) => !Number.isInteger(n) || n < 1) ||
    numbers.size < 16 ||
    values.config.some((pair) => !pair.includes('=')) ||
    !(idleSeconds >= 0)
  ) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const readWorkers = values['read-workers'] === undefined ? undefined : Number(values['read-workers']);
  if (readWorkers !== undefined && !(Number.isInteger(readWorkers) && readWorkers >= 1)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const result = await benchLoad({
    ...numbers,
    clients,
    config,
    idleSeconds,
    readWorkers,
    readsOnly: values['reads-only'],
    nodeArgs: values['node-args'].split(' ').filter(Boolean),
  });
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${formatLoad(result)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
