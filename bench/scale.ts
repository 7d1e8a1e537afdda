// Scale benchmark: synthetic stores of N turns + N memories (default 10k and 100k), built fast
// with bulk inserts in transactions (the FTS triggers index as they go), then measured through
// the real code paths: ingestTurn (addTurn + heuristic extraction + NER), search, getContext.
// With --users U the same total is spread over U users (memory spaces), measured per user and
// beside the one-user file of the same size in the same run; every file also holds one small
// user (100 turns) whose search shows whether cost follows the user's own data.
//   npm run bench:scale -- [--json] [--sizes 10000,100000] [--samples 300] [--users 1000]
import type { Space } from '../server/core/space.ts';
import { runMain } from './run-main.ts';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getContext } from '../server/core/context.ts';
import { search } from '../server/core/search/index.ts';
import type { Store } from '../server/core/store.ts';
import { normalizeText } from '../server/core/text.ts';
import { closeStore, openStore } from '../server/db/open.ts';
import { optimizeSearchIndexes } from '../server/db/search-index.ts';
import { ingestTurn } from '../server/ingest.ts';
import { createRuntime } from '../server/runtime.ts';
import { percentile, round } from './stats.ts';

/** Deterministic PRNG (mulberry32), so every run builds the same store. */
export function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = 'ka ri mo lu sen ta vi ro na el pa do mi gu an te lo be sa fi'.split(' ');
const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina', 'Jon', 'Sam', 'Alex', 'Priya', 'Tomás'];

/** A Zipf-distributed vocabulary: a few words everywhere, most words rare, as in real chat. */
function makeText(random: () => number) {
  const vocab = Array.from({ length: 8000 }, (_, i) => {
    let word = '';
    for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
    return word;
  });
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < vocab.length; i++) cdf.push((total += 1 / (i + 1) ** 1.05));
  const pick = () => {
    const x = random() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  return {
    sentence: (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min)) }, pick).join(' '),
    word: pick,
  };
}

/** The user that row `i` of `size` belongs to when the rows are spread evenly over `users`. */
export const userOf = (i: number, size: number, users: number) => (users === 1 ? 'default' : `user${Math.floor((i * users) / size)}`);

/** Bulk-loads `size` turns (with a fact each) spread over `users` users, plus `extra` rows of `extraUser`. */
export function build(store: Store, size: number, random: () => number, users = 1, extra: { user: string; rows: number } | null = null) {
  const text = makeText(random);
  const db = store.sqlite;
  // Synthetic history is already consolidated, as a store in steady state would be.
  const insertUser = db.prepare('insert or ignore into users (id, created_at) values (?, ?)');
  const insertSession = db.prepare('insert or ignore into sessions (user_id, id, first_seen_at, last_seen_at, consolidated_at) values (?, ?, ?, ?, ?)');
  const insertTurn = db.prepare('insert into turns (user_id, session_id, role, name, text, at, created_at) values (?, ?, ?, ?, ?, ?, ?)');
  const insertMemory = db.prepare(
    "insert into memories (user_id, kind, layer, status, content, content_key, session_id, hits, score, decay_rate, importance, tags, created_at, event_at, last_seen_at) values (?, 'fact', ?, 'active', ?, ?, ?, ?, ?, 0.1, ?, '[]', ?, ?, ?)",
  );
  const insertSource = db.prepare("insert into memory_sources (memory_id, turn_id, reason, at) values (?, ?, 'extracted', ?)");
  const start = Date.UTC(2024, 0, 1);
  const perSession = 100;
  const chunk = 5000;
  const total = size + (extra?.rows ?? 0);
  for (let done = 0; done < total; done += chunk) {
    db.transaction(() => {
      for (let i = done; i < Math.min(total, done + chunk); i++) {
        const userId = i < size ? userOf(i, size, users) : extra!.user;
        // Each user's sessions are named s0, s1...: session ids repeat across users, as in an app.
        const session = `s${Math.floor(i / perSession) % 1000}`;
        const at = start + i * 60_000;
        const name = NAMES[Math.floor(i / perSession) % NAMES.length]!;
        insertUser.run(userId, at);
        insertSession.run(userId, session, at, at, at);
        const speaker = i % 2 === 0 ? name : NAMES[(Math.floor(i / perSession) + 1) % NAMES.length]!;
        const turnId = Number(insertTurn.run(userId, session, 'user', speaker, text.sentence(8, 30), at, at).lastInsertRowid);
        const content = `${speaker} ${text.sentence(4, 12)}`;
        const memoryId = Number(
          insertMemory.run(userId, random() < 0.1 ? 'long' : 'mid', content, normalizeText(content), session, Math.floor(random() * 4), random() * 3, random(), at, at, at).lastInsertRowid,
        );
        insertSource.run(memoryId, turnId, at);
      }
    })();
  }
  return text;
}

const timeIt = (fn: () => unknown) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

/** The small user every file holds: 100 turns, whatever the file's size. */
const SMALL_USER = 'small-user';
const SMALL_ROWS = 100;

export async function benchScale(size: number, samples: number, users = 1) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-scale-'));
  const path = join(dir, 'scale.db');
  let now = Date.UTC(2025, 0, 1);
  // Opened as the server opens it (serve.ts): checkpoints on their own thread.
  const store = openStore({ path, env: {}, clock: { now: () => now }, config: { extractor: { mode: 'heuristic' } }, backgroundCheckpoints: true });
  const random = rng(42);
  const started = performance.now();
  const text = build(store, size, random, users, { user: SMALL_USER, rows: SMALL_ROWS });
  // A sample's user: the one user, or one of the many at random (reads and writes alike).
  const someone = (): Space => ({ userId: userOf(Math.floor(random() * size), size, users), agentId: null });
  const buildSeconds = (performance.now() - started) / 1000;
  // A store in steady state has had its nightly `optimize` (one FTS5 segment per index), which
  // bulk loading in 5k-row transactions does not give; turns added below add segments again.
  optimizeSearchIndexes(store.sqlite);
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  // No ANALYZE: the service never runs it, so a real store has no sqlite_stat tables. With them,
  // plans differ (one scan only showed without them), and FTS5 re-prepares its segment lookups
  // on every probe once sqlite_stat4 covers its shadow tables.
  const runtime = createRuntime(store, {});

  // Warm up as a running server would be (statements prepared, code compiled), like search and
  // context below: a short session of its own, before the measured sessions.
  for (let i = 0; i < 20; i++) {
    now += 60_000;
    await ingestTurn(runtime, someone(), { sessionId: 'warmup', role: 'user', name: NAMES[i % NAMES.length]!, text: `I keep a notebook about warm-up topic number ${i} at home` });
  }
  const addTurnMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    now += 60_000;
    const input = { sessionId: `live${Math.floor(i / 50)}`, role: 'user' as const, name: NAMES[i % NAMES.length]!, text: `I ${text.word()} ${text.sentence(6, 20)}` };
    const space = someone();
    const t0 = performance.now();
    await ingestTurn(runtime, space, input);
    addTurnMs.push(performance.now() - t0);
  }
  const queries = Array.from({ length: samples }, () => ({ space: someone(), query: `What did ${NAMES[Math.floor(random() * NAMES.length)]} say about ${text.sentence(2, 5)}?` }));
  // Warm the statement cache and page cache once, as a running server would be.
  for (const { space, query } of queries.slice(0, 20)) search(store, space, { query });
  const searchMs = queries.map(({ space, query }) => timeIt(() => search(store, space, { query, limit: 10 })));
  const contextMs = queries.map(({ space, query }, i) => timeIt(() => getContext(store, space, { sessionId: `s${i % 4}`, query })));
  const small: Space = { userId: SMALL_USER, agentId: null };
  const smallSearchMs = queries.map(({ query }) => timeIt(() => search(store, small, { query, limit: 10 })));
  const hits = queries.slice(0, 50).reduce((n, { space, query }) => n + search(store, space, { query, limit: 10 }).hits.length, 0);
  // Closing the last connection checkpoints the WAL into the file (and stops the checkpoint thread).
  closeStore(store);
  const bytes = statSync(path).size;
  rmSync(dir, { recursive: true, force: true });
  const stat = (values: number[]) => ({ p50: round(percentile(values, 50), 2), p95: round(percentile(values, 95), 2), p99: round(percentile(values, 99), 2) });
  return {
    size,
    users,
    buildSeconds: round(buildSeconds, 1),
    dbMB: round(bytes / 1e6, 1),
    addTurnMs: stat(addTurnMs),
    searchMs: stat(searchMs),
    contextMs: stat(contextMs),
    /** Search of the 100-turn user inside this file. */
    smallUserSearchMs: stat(smallSearchMs),
    /** Hits of the first 50 searches: a search that finds nothing is fast for nothing. */
    hitsPer50: hits,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      sizes: { type: 'string', default: '10000,100000' },
      samples: { type: 'string', default: '300' },
      users: { type: 'string', default: '1' },
    },
  });
  const sizes = values.sizes.split(',').map(Number);
  const samples = Number(values.samples);
  const users = Number(values.users);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(samples) || samples < 10 || !Number.isInteger(users) || users < 1 || sizes.some((n) => n < users)) {
    process.stderr.write('usage: npm run bench:scale -- [--json] [--sizes 10000,100000] [--samples 300] [--users 1000] (at most one user per row)\n');
    process.exit(2);
  }
  // With several users, each size is also measured with one user, in the same run, to compare.
  const results: Awaited<ReturnType<typeof benchScale>>[] = [];
  for (const size of sizes) {
    results.push(await benchScale(size, samples, 1));
    if (users > 1) results.push(await benchScale(size, samples, users));
  }
  const machine = { cores: availableParallelism(), loadAverage: loadavg().map((n) => round(n, 2)) };
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ machine, results })}\n`);
    return;
  }
  const head =
    'turns+memories  users  build s  db MB  addTurn p50/p99 ms  search p50/p95/p99 ms  context p50/p95/p99 ms  100-turn user search p50/p95 ms';
  const rows = results.map((r) =>
    [
      String(r.size).padEnd(15),
      String(r.users).padEnd(5),
      String(r.buildSeconds).padEnd(7),
      String(r.dbMB).padEnd(5),
      `${r.addTurnMs.p50} / ${r.addTurnMs.p99}`.padEnd(19),
      `${r.searchMs.p50} / ${r.searchMs.p95} / ${r.searchMs.p99}`.padEnd(21),
      `${r.contextMs.p50} / ${r.contextMs.p95} / ${r.contextMs.p99}`.padEnd(22),
      `${r.smallUserSearchMs.p50} / ${r.smallUserSearchMs.p95}`,
    ].join('  '),
  );
  const ratios = results.flatMap((r, i) => {
    const one = results[i - 1];
    if (r.users === 1 || !one || one.size !== r.size) return [];
    const x = (a: number, b: number) => `${round(a / b, 2)}x`;
    return [`${r.size} over ${r.users} users vs one user, same run: search p95 ${x(r.searchMs.p95, one.searchMs.p95)}, context p95 ${x(r.contextMs.p95, one.contextMs.p95)}, addTurn p50 ${x(r.addTurnMs.p50, one.addTurnMs.p50)}`];
  });
  process.stdout.write([`machine: ${machine.cores} cores, load average ${machine.loadAverage.join(' ')}`, head, ...rows, ...ratios].join('\n') + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
