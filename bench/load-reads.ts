// The read half of bench:load: search at 1, 4, 16... closed-loop clients
// against a server with read workers off and one with them on, each on its own copy of the file.
import { copyFileSync } from 'node:fs';
import { backlogReader, cpuOf, graphqlClient, memoryOf, startServer, type GraphqlClient } from './load-server.ts';
import { call, closedLoop, SEARCH, sleep, type Context, type Stat } from './load-clients.ts';
import { userName } from './synthetic.ts';
import { round } from './stats.ts';

const READ_WORKERS = '{ stats { readWorkers { ready served inProcess } } }';

type WorkerCounts = { ready: number; served: number; inProcess: number } | null;

async function workerCounts(client: GraphqlClient): Promise<WorkerCounts> {
  return ((await client.post(READ_WORKERS, {})).body?.data?.stats?.readWorkers as WorkerCounts) ?? null;
}

/** What both servers of the comparison share: node flags, environment, the clients at most, the queries. */
type ServerSetup = { env: Record<string, string>; nodeArgs: string[]; maxClients: number; queries: string[] };

/**
 * A server with `workers` read workers on `path`, started (workers up) and warmed up; `measure`
 * gives, for `n` closed-loop clients searching, requests/s, latency, the share the workers
 * answered, the server's CPU per search (all threads) and its memory.
 */
async function readServer(path: string, workers: number, { env, nodeArgs, maxClients, queries }: ServerSetup) {
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
    for (
      const until = performance.now() + 60_000;
      workers > 0 && ((await workerCounts(client))?.ready ?? 0) < workers;
    ) {
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
  for (let i = 0; i < 100; i++)
    await call(client, SEARCH, { query: queries[i % queries.length], userId: userName(i % 16, 16) });
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
        cpuMsPerSearch:
          before.cpu && after.cpu && row.answered > 0
            ? round(((after.cpu.all - before.cpu.all) * 1000) / row.answered, 2)
            : null,
        mainCpuMsPerSearch:
          before.cpu && after.cpu && row.answered > 0
            ? round(((after.cpu.main - before.cpu.main) * 1000) / row.answered, 2)
            : null,
      };
    },
  };
}

export type ReadComparison = {
  /** The file; each server gets a copy of its own. */
  path: string;
  env: Record<string, string>;
  nodeArgs: string[];
  /** Read workers of the second server (the first has none). */
  workers: number;
  /** Closed-loop client counts, one phase each. */
  clients: number[];
  /** Seconds per phase. */
  seconds: number;
  queries: string[];
};

/**
 * Search with read workers off, then on, each server on its own copy of the file (never two
 * writers on one), both up at once: the phases alternate per client count (off first, then on
 * first, ...), so the machine's load drifting over the run weighs on both alike.
 */
export async function readComparison({ path, env, nodeArgs, workers, clients, seconds, queries }: ReadComparison) {
  const servers: Awaited<ReturnType<typeof readServer>>[] = [];
  try {
    for (const [k, n] of [0, workers].entries()) {
      const copy = `${path}.reads-${k}.db`;
      copyFileSync(path, copy);
      servers.push(await readServer(copy, n, { env, nodeArgs, maxClients: Math.max(...clients), queries }));
    }
    const rows: Awaited<ReturnType<(typeof servers)[number]['measure']>>[][] = [[], []];
    for (const [i, n] of clients.entries())
      for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) rows[k]!.push(await servers[k]!.measure(n, seconds));
    return servers.map((server, k) => ({ workers: server.workers, startedMB: server.startedMB, rows: rows[k]! }));
  } finally {
    for (const server of servers) await server.close();
  }
}

export type Reads = Awaited<ReturnType<typeof readComparison>>;

const three = (x: Stat) => `${x.p50} / ${x.p95} / ${x.p99}`;

export function formatReads(
  reads: Reads,
  machine: { cores: number; loadAverageAtStart: number[]; loadAverage: number[] },
): string[] {
  const [off, on] = reads;
  const ratio = (i: number) =>
    off!.rows[i]!.requestsPerSecond > 0
      ? round(on!.rows[i]!.requestsPerSecond / off!.rows[i]!.requestsPerSecond, 2)
      : '–';
  return [
    `Search with read workers off and on (${machine.cores} cores; load average ${machine.loadAverageAtStart.join(' ')} at start, ${machine.loadAverage.join(' ')} after; the clients share the machine):`,
    '',
    '| read workers | clients | requests/s | p50 / p95 / p99 ms | answered by workers / in-process | server CPU ms / search (main thread) | RSS MB after (peak) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...reads.flatMap((phase) =>
      phase.rows.map(
        (c) =>
          `| ${phase.workers} | ${c.clients} | ${c.requestsPerSecond} | ${three(c.latencyMs)} | ${c.byWorkers} / ${c.inProcess} | ${c.cpuMsPerSearch ?? '–'} (${c.mainCpuMsPerSearch ?? '–'}) | ${c.rssMB ?? '–'} (${c.peakMB ?? '–'}) |`,
      ),
    ),
    '',
    `| clients | off: requests/s, p95 ms | on (${on!.workers} workers): requests/s, p95 ms | requests/s on / off |`,
    '| --- | --- | --- | --- |',
    ...off!.rows.map(
      (c, i) =>
        `| ${c.clients} | ${c.requestsPerSecond}, ${c.latencyMs.p95} | ${on!.rows[i]!.requestsPerSecond}, ${on!.rows[i]!.latencyMs.p95} | ${ratio(i)} |`,
    ),
    '',
    `RSS once up, before the searches: ${reads.map((p) => `${p.startedMB ?? '–'} MB with ${p.workers} workers`).join(', ')}`,
    ...on!.rows.flatMap((c, i) => {
      const ceiling = mainThreadCeiling(off!.rows[i]!, c);
      return ceiling
        ? [
            `at ${c.clients} clients the main thread spent ${c.mainCpuMsPerSearch} ms of CPU per search with workers on (${off!.rows[i]!.mainCpuMsPerSearch ?? '–'} off): at most ${ceiling.requestsPerSecond} requests/s with a core per worker, ${ceiling.ratio}x the figure with workers off`,
          ]
        : [];
    }),
  ];
}

export type ReadRow = Reads[number]['rows'][number];

/**
 * What the main thread alone allows once workers take the searches: it keeps HTTP and GraphQL,
 * so its CPU per search bounds the requests/s however many cores the workers get (an upper
 * bound, not a measurement of more cores). Null where the workers did not answer most reads (a
 * lone read runs on the main thread).
 */
export function mainThreadCeiling(off: ReadRow, on: ReadRow): { requestsPerSecond: number; ratio: number } | null {
  if (!on.mainCpuMsPerSearch || on.byWorkers <= on.inProcess || off.requestsPerSecond <= 0) return null;
  const requestsPerSecond = round(1000 / on.mainCpuMsPerSearch, 0);
  return { requestsPerSecond, ratio: round(requestsPerSecond / off.requestsPerSecond, 2) };
}
