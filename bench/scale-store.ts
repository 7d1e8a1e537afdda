// The benchmarks' synthetic stores: `synthetic(...)`'s rows bulk-loaded into a SQLite file, and
// what a backend of bench:scale provides (SQLite here; Postgres and PGlite in scale-postgres.ts).
// Apart from scale.ts so the other benchmarks (and scale-postgres.ts, vectors.ts) use them
// without importing the scale benchmark itself.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../server/core/kernel/store.ts';
import { normalizeText } from '../server/core/text/text.ts';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { optimizeSearchIndexes } from '../server/storage/sqlite/search-index.ts';
import { type makeText, synthetic } from './synthetic.ts';

/** Bulk-loads `synthetic(...)`'s rows into a SQLite store, 5k rows a transaction (the FTS triggers index as they go). */
export function build(
  store: Store,
  size: number,
  random: () => number,
  users = 1,
  extra: { user: string; rows: number } | null = null,
) {
  const { text, sessions } = synthetic(size, random, users, extra);
  const db = store.sqlite;
  // Synthetic history is already consolidated, as a store in steady state would be.
  const insertUser = db.prepare('insert or ignore into users (id, created_at) values (?, ?)');
  const insertSession = db.prepare(
    'insert into sessions (user_id, id, first_seen_at, last_seen_at, consolidated_at) values (?, ?, ?, ?, ?)',
  );
  const insertTurn = db.prepare(
    'insert into turns (user_id, session_id, role, name, text, at, created_at) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertMemory = db.prepare(
    "insert into memories (user_id, kind, layer, status, content, content_key, session_id, hits, score, decay_rate, importance, tags, created_at, event_at, last_seen_at) values (?, 'fact', ?, 'active', ?, ?, ?, ?, ?, 0.1, ?, '[]', ?, ?, ?)",
  );
  const insertSource = db.prepare(
    "insert into memory_sources (memory_id, turn_id, reason, at) values (?, ?, 'extracted', ?)",
  );
  const chunk = 5000;
  let inChunk = 0;
  db.exec('begin');
  for (const { user, session, first, last, rows } of sessions) {
    insertUser.run(user, first);
    insertSession.run(user, session, first, last, last);
    for (const row of rows) {
      const turnId = Number(
        insertTurn.run(user, session, 'user', row.speaker, row.text, row.at, row.at).lastInsertRowid,
      );
      const memoryId = Number(
        insertMemory.run(
          user,
          row.layer,
          row.content,
          normalizeText(row.content),
          session,
          row.hits,
          row.score,
          row.importance,
          row.at,
          row.at,
          row.at,
        ).lastInsertRowid,
      );
      insertSource.run(memoryId, turnId, row.at);
      if (++inChunk === chunk) {
        db.exec('commit');
        db.exec('begin');
        inChunk = 0;
      }
    }
  }
  db.exec('commit');
  return text;
}

/** Where a benchmark store lives: SQLite here; Postgres and PGlite in scale-postgres.ts. */
export type BenchBackend = {
  name: string;
  open(): Promise<{ store: Store; clock: { at: number }; close(): Promise<number> }>;
  build(
    store: Store,
    size: number,
    random: () => number,
    users: number,
    extra: { user: string; rows: number },
  ): Promise<ReturnType<typeof makeText>>;
  settle(store: Store): Promise<void>;
  /** The targets for this backend (docs/benchmarks.md). */
  targets: { addTurnP50Ms: number; searchP95Ms: number | null; smallUserSearchP95Ms: number | null };
};

export async function openBenchStore() {
  const dir = mkdtempSync(join(tmpdir(), 'sm-scale-'));
  const path = join(dir, 'scale.db');
  const clock = { at: Date.UTC(2025, 0, 1), now: () => clock.at };
  // Opened as the server opens it (server/http/serve.ts): checkpoints on their own thread.
  const store = await openStore({
    path,
    env: {},
    clock,
    config: { extractor: { mode: 'heuristic' } },
    backgroundCheckpoints: true,
  });
  return {
    store,
    clock,
    /** Closes the store (the last connection checkpoints the WAL into the file) and returns the file's size. */
    close: async () => {
      await closeStore(store);
      const bytes = statSync(path).size;
      rmSync(dir, { recursive: true, force: true });
      return bytes;
    },
  };
}

/** As a running server's store: one FTS5 segment per index after its nightly optimize, WAL checkpointed. */
export function settle(store: Store) {
  // Bulk loading in 5k-row transactions leaves several segments; turns added later add more again.
  optimizeSearchIndexes(store.sqlite);
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  // No ANALYZE: the service never runs it, so a real store has no sqlite_stat tables. With them,
  // plans differ (one scan only showed without them), and FTS5 re-prepares its segment lookups
  // on every probe once sqlite_stat4 covers its shadow tables.
}

export const SQLITE: BenchBackend = {
  name: 'sqlite',
  open: openBenchStore,
  build: async (store, size, random, users, extra) => build(store, size, random, users, extra),
  settle: async (store) => settle(store),
  targets: { addTurnP50Ms: 1, searchP95Ms: null, smallUserSearchP95Ms: 2 },
};
