// Scale benchmark: synthetic stores of N turns + N memories (default 10k and 100k), built fast
// with bulk inserts in transactions (the FTS triggers index as they go), then measured through
// the real code paths: ingestTurn (addTurn + heuristic extraction + NER), search, getContext.
// Every file of N turns holds a small user of exactly 100 turns beside N - 100 turns of the
// others; with --users U those are spread evenly over U users (sessions of their own, the
// users' sessions interleaved in time) and measured per user, each sample a random user, beside
// the one-user file of the same size in the same run. The small user is also measured alone in a
// file of its 100 turns: its search in the big file should cost what it costs there.
//   npm run bench:scale -- [--json] [--sizes 10000,100000] [--samples 300] [--users 1000]
// With --vectors it runs the vector benchmark instead (bench/vectors.ts, its own options).
import type { Space } from '../server/core/kernel/space.ts';
import { runMain } from './run-main.ts';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { getContext } from '../server/core/context/context.ts';
import { search } from '../server/core/search/index.ts';
import type { Store } from '../server/core/kernel/store.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';
import { percentile, round } from './stats.ts';
import { SQLITE, type BenchBackend } from './scale-store.ts';
import { NAMES, question, rng, sessionSize, userName } from './synthetic.ts';

const timeIt = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

type Stat = { p50: number; p95: number; p99: number };
const stat = (values: number[]): Stat => ({
  p50: round(percentile(values, 50), 2),
  p95: round(percentile(values, 95), 2),
  p99: round(percentile(values, 99), 2),
});

/** The small user every file holds: 100 turns, whatever the file's size. */
const SMALL_USER = 'small-user';
const SMALL_ROWS = 100;
/**
 * Unmeasured calls before each measurement. A server has run thousands: after a few dozen, V8
 * still runs much of the code unoptimised (measured: addTurn p50 ~10 % higher after 20 than
 * after 500), which is the cost of a cold start, not of a turn.
 */
const WARMUP = 300;
/** Turns per live session when measuring addTurn: one session in ten samples opens a new one. */
const LIVE_TURNS = 10;

/** The sessions a user of `rows` turns has (build names them s0, s1...). */
const sessionsOf = (rows: number) => Math.ceil(rows / sessionSize(rows));

type Sample = { space: Space; query: string; sessionId: string };

/** Search (limit 10) and getContext latencies over `samples`, after warming up on `warmup` (other queries). */
async function measureReads(store: Store, samples: Sample[], warmup: Sample[]) {
  // Statements prepared, code compiled, pages cached, as in a running server.
  for (const { space, query, sessionId } of warmup) {
    await search(store, space, { query, limit: 10 });
    await getContext(store, space, { sessionId, query });
  }
  const searchMs: number[] = [];
  for (const { space, query } of samples) searchMs.push(await timeIt(() => search(store, space, { query, limit: 10 })));
  const contextMs: number[] = [];
  for (const { space, query, sessionId } of samples)
    contextMs.push(await timeIt(() => getContext(store, space, { sessionId, query })));
  // A search that finds nothing is fast for nothing.
  let hitsPer50 = 0;
  for (const { space, query } of samples.slice(0, 50))
    hitsPer50 += (await search(store, space, { query, limit: 10 })).hits.length;
  return { searchMs: stat(searchMs), contextMs: stat(contextMs), hitsPer50 };
}

/** Queries of the small user, on its own sessions. */
const smallSamples = (queries: string[]): Sample[] =>
  queries.map((query, i) => ({
    space: { userId: SMALL_USER, agentId: null },
    query,
    sessionId: `s${i % Math.min(4, sessionsOf(SMALL_ROWS))}`,
  }));

/**
 * A file of `size` turns (+ a fact each): `size - 100` spread evenly over `users` users, and the
 * small user's 100. Each read sample is a random user (the one user when `users` is 1).
 */
export async function benchScale(size: number, samples: number, users = 1, backend = SQLITE) {
  const { store, clock, close } = await backend.open();
  const random = rng(42);
  const started = performance.now();
  const rows = size - SMALL_ROWS;
  const text = await backend.build(store, rows, random, users, { user: SMALL_USER, rows: SMALL_ROWS });
  const buildSeconds = (performance.now() - started) / 1000;
  await backend.settle(store);
  const runtime = await createRuntime(store, {});
  const someone = () => Math.floor(random() * users);
  const space = (u: number): Space => ({ userId: userName(u, users), agentId: null });

  // Warm up as a running server would be (statements prepared, code compiled): sessions of
  // their own, before the measured sessions.
  for (let i = 0; i < WARMUP; i++) {
    clock.at += 60_000;
    await ingestTurn(runtime, space(someone()), {
      sessionId: 'warmup',
      role: 'user',
      name: NAMES[i % NAMES.length]!,
      text: `I keep a notebook about warm-up topic number ${i} at home`,
    });
  }
  // Live sessions of LIVE_TURNS turns. One user: one after another. Many: each session a random
  // user's, all running at once (turn by turn in rotation), as users talking at the same time.
  const live = Math.ceil(samples / LIVE_TURNS);
  const liveUsers = Array.from({ length: live }, someone);
  const addTurnMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    clock.at += 60_000;
    const session = users === 1 ? Math.floor(i / LIVE_TURNS) : i % live;
    const input = {
      sessionId: `live${session}`,
      role: 'user' as const,
      name: NAMES[i % NAMES.length]!,
      text: `I ${text.word()} ${text.sentence(6, 20)}`,
    };
    const where = space(liveUsers[session]!);
    const t0 = performance.now();
    await ingestTurn(runtime, where, input);
    addTurnMs.push(performance.now() - t0);
  }
  // Reads: each sample a random user, its context on one of that user's first sessions (so the
  // short-term window has turns, and the user's other sessions hold the relevant facts).
  const sample = (): Sample => {
    const u = someone();
    const rowsOfUser = Math.floor(((u + 1) * rows) / users) - Math.floor((u * rows) / users);
    return {
      space: space(u),
      query: question(text, random),
      sessionId: `s${Math.floor(random() * Math.min(4, sessionsOf(rowsOfUser)))}`,
    };
  };
  const warmup = Array.from({ length: WARMUP }, sample);
  const measured = Array.from({ length: samples }, sample);
  const reads = await measureReads(store, measured, warmup);
  // The small user, asked the same questions in the same file.
  const small = await measureReads(
    store,
    smallSamples(measured.map((s) => s.query)),
    smallSamples(warmup.map((s) => s.query)),
  );
  const bytes = await close();
  return {
    size,
    users,
    buildSeconds: round(buildSeconds, 1),
    dbMB: round(bytes / 1e6, 1),
    addTurnMs: stat(addTurnMs),
    searchMs: reads.searchMs,
    contextMs: reads.contextMs,
    /** Search and context of the 100-turn user inside this file. */
    smallUserSearchMs: small.searchMs,
    smallUserContextMs: small.contextMs,
    /** Hits of the first 50 searches: a search that finds nothing is fast for nothing. */
    hitsPer50: reads.hitsPer50,
    smallUserHitsPer50: small.hitsPer50,
  };
}

/** The small user alone in a file of its 100 turns: what its search costs when nothing else is there. */
export async function benchAlone(samples: number, backend = SQLITE) {
  const { store, close } = await backend.open();
  const random = rng(42);
  const text = await backend.build(store, 0, random, 1, { user: SMALL_USER, rows: SMALL_ROWS });
  await backend.settle(store);
  const queries = Array.from({ length: samples + WARMUP }, () => question(text, random));
  const reads = await measureReads(store, smallSamples(queries.slice(WARMUP)), smallSamples(queries.slice(0, WARMUP)));
  await close();
  return { rows: SMALL_ROWS, ...reads };
}

type Result = Awaited<ReturnType<typeof benchScale>>;
const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : null);

/** Many users against one user of the same size, same run; the small user against itself alone. */
function ratiosOf(results: Result[], alone: Awaited<ReturnType<typeof benchAlone>>) {
  return results.flatMap((r) => {
    const one = results.find((o) => o.size === r.size && o.users === 1);
    return [
      {
        size: r.size,
        users: r.users,
        /** Per-user p95 over the one-user file's (null for the one-user row itself). */
        searchP95VsOneUser: r.users === 1 || !one ? null : ratio(r.searchMs.p95, one.searchMs.p95),
        contextP95VsOneUser: r.users === 1 || !one ? null : ratio(r.contextMs.p95, one.contextMs.p95),
        addTurnP50VsOneUser: r.users === 1 || !one ? null : ratio(r.addTurnMs.p50, one.addTurnMs.p50),
        /** The 100-turn user's search p95 in this file over its p95 alone in a 100-turn file. */
        smallUserSearchP95VsAlone: ratio(r.smallUserSearchMs.p95, alone.searchMs.p95),
      },
    ];
  });
}

/** The targets: per-user reads no slower than one user's, the small user's search <= 2 ms, addTurn <= 1 ms. */
function targetsOf(results: Result[], ratios: ReturnType<typeof ratiosOf>, targets: BenchBackend['targets']) {
  return results.flatMap((r, i) => {
    const x = ratios[i]!;
    const checks: [string, boolean][] = [
      [`addTurn p50 ${r.addTurnMs.p50} <= ${targets.addTurnP50Ms} ms`, r.addTurnMs.p50 <= targets.addTurnP50Ms],
    ];
    if (targets.searchP95Ms != null)
      checks.push([`search p95 ${r.searchMs.p95} <= ${targets.searchP95Ms} ms`, r.searchMs.p95 <= targets.searchP95Ms]);
    if (targets.smallUserSearchP95Ms != null)
      checks.push([
        `100-turn user search p95 ${r.smallUserSearchMs.p95} <= ${targets.smallUserSearchP95Ms} ms`,
        r.smallUserSearchMs.p95 <= targets.smallUserSearchP95Ms,
      ]);
    if (x.searchP95VsOneUser != null)
      checks.push([`search p95 ${x.searchP95VsOneUser}x one user's <= 1`, x.searchP95VsOneUser <= 1]);
    if (x.contextP95VsOneUser != null)
      checks.push([`context p95 ${x.contextP95VsOneUser}x one user's <= 1`, x.contextP95VsOneUser <= 1]);
    return checks.map(([what, met]) => ({ size: r.size, users: r.users, target: what, met }));
  });
}

const label = (size: number, users: number) =>
  `${size.toLocaleString('en')} turns, ${users === 1 ? 'one user' : `${users.toLocaleString('en')} users`}`;
const three = (s: Stat) => `${s.p50} / ${s.p95} / ${s.p99}`;

async function main() {
  // Imported when asked for: vectors.ts builds its stores with this file's functions.
  if (process.argv.includes('--vectors')) return (await import('./vectors.ts')).main();
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      sizes: { type: 'string', default: '10000,100000' },
      samples: { type: 'string', default: '300' },
      users: { type: 'string', default: '1' },
      backend: { type: 'string', default: 'sqlite' },
      // Two nodes against one (Postgres only): closed-loop search clients, seconds per setup.
      clients: { type: 'string', default: '16' },
      seconds: { type: 'string', default: '10' },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  const samples = Number(values.samples);
  const users = Number(values.users);
  if (
    sizes.some((n) => !Number.isInteger(n) || n - SMALL_ROWS < users) ||
    !Number.isInteger(samples) ||
    samples < 10 ||
    !Number.isInteger(users) ||
    users < 1
  ) {
    process.stderr.write(
      `usage: npm run bench:scale -- [--json] [--sizes 10000,100000] [--samples 300] [--users 1000] (each size at least users + ${SMALL_ROWS})\n`,
    );
    process.exit(2);
  }
  if (!['sqlite', 'postgres', 'pglite'].includes(values.backend)) {
    process.stderr.write('--backend: sqlite, postgres or pglite\n');
    process.exit(2);
  }
  const loadAtStart = loadavg().map((n) => round(n, 2));
  const postgres =
    values.backend === 'sqlite'
      ? null
      : await (await import('./scale-postgres.ts')).postgresBackend(values.backend as 'postgres' | 'pglite');
  const backend = postgres ?? SQLITE;
  try {
    return await report({ values, backend, sizes, samples, users, loadAtStart, postgres });
  } finally {
    await postgres?.stop();
  }
}

/** One run: the flags, the backend (and Postgres when it is one), the sizes and samples, the load at the start. */
type Run = {
  values: { json: boolean; clients: string; seconds: string };
  backend: BenchBackend;
  sizes: number[];
  samples: number;
  users: number;
  loadAtStart: number[];
  postgres: Awaited<ReturnType<typeof import('./scale-postgres.ts').postgresBackend>> | null;
};

async function report({ values, backend, sizes, samples, users, loadAtStart, postgres }: Run) {
  const alone = await benchAlone(samples, backend);
  // With several users, each size is also measured with one user, in the same run, to compare.
  const results: Result[] = [];
  for (const size of sizes) {
    results.push(await benchScale(size, samples, 1, backend));
    if (users > 1) results.push(await benchScale(size, samples, users, backend));
  }
  const ratios = ratiosOf(results, alone);
  const targets = targetsOf(results, ratios, backend.targets);
  // On the last store built (its database is kept until the end): one `sm serve` against two.
  const nodes = postgres?.twoNodes
    ? await postgres.twoNodes({ clients: Number(values.clients), seconds: Number(values.seconds), users })
    : null;
  const machine = {
    cores: availableParallelism(),
    loadAverage: loadavg().map((n) => round(n, 2)),
    loadAverageAtStart: loadAtStart,
  };
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ machine, backend: backend.name, samples, alone, results, ratios, targets, nodes })}\n`,
    );
    return;
  }
  const table = [
    '| file | build s | db MB | addTurn p50 / p99 ms | search p50 / p95 / p99 ms | context p50 / p95 / p99 ms | 100-turn user search p50 / p95 / p99 ms | 100-turn user context p50 / p95 / p99 ms | hits / 50 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${SMALL_ROWS} turns, the 100-turn user alone | | | | | | ${three(alone.searchMs)} | ${three(alone.contextMs)} | ${alone.hitsPer50} |`,
    ...results.map(
      (r) =>
        `| ${label(r.size, r.users)} + the 100-turn user | ${r.buildSeconds} | ${r.dbMB} | ${r.addTurnMs.p50} / ${r.addTurnMs.p99} | ${three(r.searchMs)} | ${three(r.contextMs)} | ${three(r.smallUserSearchMs)} | ${three(r.smallUserContextMs)} | ${r.hitsPer50} |`,
    ),
  ];
  const x = (n: number | null) => (n == null ? '–' : `${n}x`);
  const ratioLines = ratios.map(
    (r) =>
      `${label(r.size, r.users)}: ${r.users === 1 ? '' : `per user vs one user, search p95 ${x(r.searchP95VsOneUser)}, context p95 ${x(r.contextP95VsOneUser)}, addTurn p50 ${x(r.addTurnP50VsOneUser)}; `}100-turn user's search p95 ${x(r.smallUserSearchP95VsAlone)} its p95 alone`,
  );
  const targetLines = targets.map((t) => `${t.met ? 'met   ' : 'MISSED'}  ${label(t.size, t.users)}: ${t.target}`);
  process.stdout.write(
    `${[
      `backend: ${backend.name}; machine: ${machine.cores} cores, load average ${loadAtStart.join(' ')} at start, ${machine.loadAverage.join(' ')} at end; ${samples} samples each, users picked at random per sample`,
      '',
      ...table,
      '',
      ...ratioLines,
      '',
      ...targetLines,
      ...(nodes ? ['', ...nodes.lines] : []),
    ].join('\n')}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
