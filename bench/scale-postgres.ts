// bench:scale on Postgres (`--backend postgres`: a throwaway Debian server started here, the
// test helper's logic in scripts/postgres-server.ts) or PGlite (`--backend pglite`, in memory):
// the same synthetic stores, loaded through the port in multi-row inserts, measured by the same
// code as SQLite's. On a server it also measures read throughput of two `sm serve` processes on
// the last database against one: closed-loop clients searching over HTTP, requests/s of each.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { hearOtherNodes, write, type Store } from '../server/core/kernel/store.ts';
import { normalizeText } from '../server/core/text/text.ts';
import { closeStore } from '../server/storage/sqlite/open.ts';
import { logger } from '../server/logger.ts';
import { openPostgresStore } from '../server/storage/postgres/open-postgres.ts';
import { startPostgresServer } from '../scripts/postgres-server.ts';
import { cpuOf, graphqlClient, startServer, type Server } from './load-server.ts';
import type { BenchBackend } from './scale-store.ts';
import { percentile, round } from './stats.ts';
import { makeText, question, rng, synthetic, userName, type SyntheticSession } from './synthetic.ts';

/** Rows per statement (memories bind 11 parameters a row: well under Postgres' 65,535). */
const ROWS_PER_INSERT = 1000;
/** Rows per transaction while loading. */
const ROWS_PER_WRITE = 5000;

/** `insert ... values (row), (row)...` in statements of ROWS_PER_INSERT rows; the ids when `tail` returns them. */
async function insertMany(store: Store, head: string, row: string, rows: unknown[][], tail = ''): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const text = `${head} ${part.map(() => row).join(', ')} ${tail}`;
    const params = part.flat() as (string | number | null)[];
    if (tail.includes('returning')) ids.push(...(await store.sql.values(text, params)).map((r) => Number(r[0])));
    else await store.sql.run(text, params);
  }
  return ids;
}

/** What scale.ts's build writes into SQLite, written through the port: the same rows, the same order. */
async function insertSessions(store: Store, sessions: SyntheticSession[]) {
  const firstSeen = new Map<string, number>();
  for (const s of sessions) if (!firstSeen.has(s.user)) firstSeen.set(s.user, s.first);
  await insertMany(
    store,
    'insert into users (id, created_at) values',
    '(?, ?)',
    [...firstSeen],
    'on conflict (id) do nothing',
  );
  await insertMany(
    store,
    'insert into sessions (user_id, id, first_seen_at, last_seen_at, consolidated_at) values',
    '(?, ?, ?, ?, ?)',
    sessions.map((s) => [s.user, s.session, s.first, s.last, s.last]),
  );
  const rows = sessions.flatMap((s) => s.rows.map((row) => ({ ...row, user: s.user, session: s.session })));
  const turnIds = await insertMany(
    store,
    'insert into turns (user_id, session_id, role, name, text, at, created_at) values',
    '(?, ?, ?, ?, ?, ?, ?)',
    rows.map((r) => [r.user, r.session, 'user', r.speaker, r.text, r.at, r.at]),
    'returning id',
  );
  const memoryIds = await insertMany(
    store,
    'insert into memories (user_id, kind, layer, status, content, content_key, session_id, hits, score, decay_rate, importance, tags, created_at, event_at, last_seen_at) values',
    "(?, 'fact', ?, 'active', ?, ?, ?, ?, ?, 0.1, ?, '[]', ?, ?, ?)",
    rows.map((r) => [
      r.user,
      r.layer,
      r.content,
      normalizeText(r.content),
      r.session,
      r.hits,
      r.score,
      r.importance,
      r.at,
      r.at,
      r.at,
    ]),
    'returning id',
  );
  await insertMany(
    store,
    'insert into memory_sources (memory_id, turn_id, reason, at) values',
    "(?, ?, 'extracted', ?)",
    rows.map((r, i) => [memoryIds[i]!, turnIds[i]!, r.at]),
  );
}

async function buildPostgres(
  store: Store,
  size: number,
  random: () => number,
  users: number,
  extra: { user: string; rows: number },
) {
  const { text, sessions } = synthetic(size, random, users, extra);
  let batch: SyntheticSession[] = [];
  let rows = 0;
  const flush = async () => {
    if (batch.length > 0) await write(store, () => insertSessions(store, batch));
    batch = [];
    rows = 0;
  };
  for (const session of sessions) {
    batch.push(session);
    rows += session.rows.length;
    if (rows >= ROWS_PER_WRITE) await flush();
  }
  await flush();
  return text;
}

const SEARCH =
  'query($query: String!, $userId: String) { search(query: $query, limit: 10, userId: $userId) { kind id score } }';

/** `clients` closed-loop clients searching for `seconds` (after a warm-up), spread over `servers`: requests/s and latency. */
async function searchLoad(servers: Server[], clients: number, seconds: number, users: number) {
  const http = servers.map((server) => graphqlClient(server.url, clients));
  const text = makeText(rng(7));
  const random = rng(8);
  const run = async (ms: number) => {
    const latencies: number[] = [];
    let failed = 0;
    const deadline = performance.now() + ms;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const client = http[c % http.length]!;
        while (performance.now() < deadline) {
          const started = performance.now();
          const reply = await client.post(SEARCH, {
            query: question(text, random),
            userId: userName(Math.floor(random() * users), users),
          });
          if (reply.status === 200 && !reply.body?.errors?.length) latencies.push(performance.now() - started);
          else failed++;
        }
      }),
    );
    return { latencies, failed };
  };
  await run(2000); // warm-up: statements prepared, code compiled, pages cached
  // Where the CPU went: the nodes, this process (the clients), the machine (Postgres is the rest).
  const before = {
    machine: machineCpu(),
    nodes: servers.map((server) => cpuOf(server.pid)?.all ?? 0),
    clients: process.cpuUsage(),
  };
  const { latencies, failed } = await run(seconds * 1000);
  const machine = machineCpu();
  const nodes = servers.reduce((sum, server, i) => sum + (cpuOf(server.pid)?.all ?? 0) - before.nodes[i]!, 0);
  const clientsUsage = process.cpuUsage(before.clients);
  const clientSeconds = (clientsUsage.user + clientsUsage.system) / 1e6;
  const busy = (machine.busy - before.machine.busy) / ((machine.total - before.machine.total) / availableParallelism());
  for (const client of http) client.close();
  return {
    requestsPerSecond: round(latencies.length / seconds, 1),
    p50: round(percentile(latencies, 50), 2),
    p95: round(percentile(latencies, 95), 2),
    failed,
    /** Cores busy on average, in all and by the nodes and the clients (the rest: Postgres and anything else running). */
    cores: { busy: round(busy, 2), nodes: round(nodes / seconds, 2), clients: round(clientSeconds / seconds, 2) },
  };
}

/** The machine's CPU time so far, busy and in all (clock ticks summed over cores, from /proc/stat). */
function machineCpu(): { busy: number; total: number } {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const ticks = fields.map(Number);
    const idle = ticks[3]! + (ticks[4] ?? 0);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 1 };
  }
}

/** The target: two nodes on one database answer >= 1.7x the reads of one. */
const TWO_NODE_TARGET = 1.7;

/**
 * The cores `factor` times one node's requests/s would keep busy at the CPU per request its run
 * measured (the nodes', the clients', and the rest: Postgres). Why: on a machine where one node,
 * Postgres and the clients already fill the cores, a second node cannot add throughput, and the
 * ratio then says how many cores the machine has, not how the nodes scale.
 */
export function coresFor(
  factor: number,
  one: { requestsPerSecond: number; cores: { busy: number; nodes: number; clients: number } },
) {
  const perRequest = (coresBusy: number) => (coresBusy * 1000) / Math.max(one.requestsPerSecond, 0.1);
  const nodeMs = perRequest(one.cores.nodes);
  const clientMs = perRequest(one.cores.clients);
  const postgresMs = perRequest(Math.max(0, one.cores.busy - one.cores.nodes - one.cores.clients));
  const cores = (factor * one.requestsPerSecond * (nodeMs + clientMs + postgresMs)) / 1000;
  return {
    nodeMs: round(nodeMs, 2),
    postgresMs: round(postgresMs, 2),
    clientMs: round(clientMs, 2),
    cores: round(cores, 1),
  };
}

/** One `sm serve` on `url`, then two on it, under the same closed-loop search load. */
async function twoNodes(url: string, options: { clients: number; seconds: number; users: number }) {
  const env = { SM_DATABASE_URL: url, SM_DB: '', SM_CONFIG__EXTRACTOR__MODE: 'heuristic' };
  const servers: Server[] = [];
  try {
    servers.push(await startServer(null, env, [], ['--no-jobs']));
    const one = await searchLoad(servers, options.clients, options.seconds, options.users);
    servers.push(await startServer(null, env, [], ['--no-jobs']));
    const two = await searchLoad(servers, options.clients, options.seconds, options.users);
    const ratio = round(two.requestsPerSecond / Math.max(one.requestsPerSecond, 0.1), 2);
    const cores = availableParallelism();
    const need = coresFor(TWO_NODE_TARGET, one);
    const verdict =
      ratio >= TWO_NODE_TARGET
        ? 'met'
        : need.cores > cores
          ? `MISSED: needs ${need.cores} cores, ${cores} here`
          : 'MISSED';
    return {
      one,
      two,
      ratio,
      need,
      lines: [
        `read throughput, ${options.clients} closed-loop clients searching over HTTP for ${options.seconds} s (${cores} cores shared by Postgres, the nodes and the clients):`,
        `| setup | requests/s | p50 ms | p95 ms | failed | cores busy (of ${cores}) | by the nodes | by the clients |`,
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        `| one sm serve | ${one.requestsPerSecond} | ${one.p50} | ${one.p95} | ${one.failed} | ${one.cores.busy} | ${one.cores.nodes} | ${one.cores.clients} |`,
        `| two sm serve, one database | ${two.requestsPerSecond} | ${two.p50} | ${two.p95} | ${two.failed} | ${two.cores.busy} | ${two.cores.nodes} | ${two.cores.clients} |`,
        `CPU per request with one node: ${need.nodeMs} ms in the node, ${need.postgresMs} ms in Postgres (and the rest), ${need.clientMs} ms in the clients; ${TWO_NODE_TARGET}x that rate needs ${need.cores} cores busy`,
        `two nodes / one: ${ratio}x (target >= ${TWO_NODE_TARGET}x: ${verdict})`,
      ],
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** The Postgres or PGlite backend of bench:scale; `stop` ends the server it started. */
export async function postgresBackend(kind: 'postgres' | 'pglite') {
  // The store's warnings (no pgvector on Debian's server) would land among the tables (or --json).
  if (!process.env.SM_LOG_LEVEL) logger.level = 'error';
  const server = kind === 'postgres' ? await startPostgresServer() : null;
  let databases = 0;
  let last: string | null = null;
  const backend: BenchBackend = {
    name: kind === 'postgres' ? 'postgres (a local Debian server, fsync off)' : 'pglite (in memory)',
    async open() {
      const url = server ? await server.createDatabase(`scale_${++databases}`) : 'pglite:';
      last = url;
      const clock = { at: Date.UTC(2025, 0, 1), now: () => clock.at };
      const store = await openPostgresStore({ url, env: {}, clock, config: { extractor: { mode: 'heuristic' } } });
      // As a server runs (its change feed): hearing the other nodes, so its caches follow their events.
      const others = hearOtherNodes(store);
      await others.ready;
      return {
        store,
        clock,
        close: async () => {
          const bytes = Number(await store.sql.pluck('select pg_database_size(current_database())'));
          await others.stop();
          await closeStore(store);
          return bytes;
        },
      };
    },
    build: buildPostgres,
    // As a server in steady state: GIN pending lists merged (the nightly optimize), statistics
    // gathered (autovacuum's analyze would have by then).
    settle: async (store) => {
      await store.sql.optimize();
      await store.sql.run('analyze');
    },
    // The targets: addTurn p50 <= 3 ms, search p95 <= 20 ms (at 100k turns over 1,000 users).
    targets: { addTurnP50Ms: 3, searchP95Ms: 20, smallUserSearchP95Ms: null },
  };
  return {
    ...backend,
    twoNodes: server
      ? (options: { clients: number; seconds: number; users: number }) => twoNodes(last!, options)
      : null,
    stop: async () => server?.stop(),
  };
}
