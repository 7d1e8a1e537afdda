// The storage port on one SQLite connection (better-sqlite3). The driver is synchronous, so
// every query finishes before its promise is returned; what the port adds is isolation on the
// one connection: while a transaction's body awaits, other code of this process runs, and on
// the same connection its statements would read the transaction's uncommitted rows or, worse,
// write into it (and be rolled back with it). So a transaction queues behind the one open, and
// a statement from outside the open transaction waits for it to end.
import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { Sql, SqlParam } from '../../core/kernel/store.ts';
import { optimizeSearchIndexes } from './search-index.ts';

const isBusy = (error: unknown) => Boolean((error as { code?: string }).code?.startsWith('SQLITE_BUSY'));

/**
 * `sm_ids(?)` / `sm_texts(?)` (a JSON array's items as rows of `value`, named alike on Postgres)
 * are prepared as SQLite's native json_each: the same rows, about 5x faster than the JavaScript
 * table functions of those names (server/storage/sqlite/open.ts), which cost some microseconds a row. Done once
 * per statement text, when it is prepared.
 */
const LIST_FUNCTION = /\bsm_(?:ids|texts)\(/g;
const sqliteText = (text: string) => (text.includes('sm_') ? text.replace(LIST_FUNCTION, 'json_each(') : text);

type Cache = Map<string, Database.Statement>;

/** Statements prepared once per text; three caches because raw() and pluck() switch a statement's mode for good. */
function statements(sqlite: Database.Database) {
  const objects: Cache = new Map();
  const arrays: Cache = new Map();
  const firsts: Cache = new Map();
  const statement = (cache: Cache, text: string, mode?: 'raw' | 'pluck') => {
    let prepared = cache.get(text);
    if (!prepared) {
      prepared = sqlite.prepare(sqliteText(text));
      if (mode === 'raw') prepared.raw(true);
      if (mode === 'pluck') prepared.pluck(true);
      cache.set(text, prepared);
    }
    return prepared;
  };
  /**
   * A pragma's first value, from a statement prepared once per text: Database.pragma() prepares
   * anew on every call, and on Node 24 every statement is kept for the process's life
   * (native-handles.ts).
   */
  const pragma = (text: string) => statement(firsts, `pragma ${text}`, 'pluck').get();
  return { objects, arrays, firsts, statement, pragma };
}

/** The one connection's order: one transaction at a time, and statements from outside it after it. */
function ordering(sqlite: Database.Database) {
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(body: () => Promise<T>): Promise<T> => {
    const result = queue.then(body, body);
    queue = result.catch(() => undefined);
    return result;
  };
  // Set for the code of the open transaction, however deep its calls and awaits go.
  const insideTransaction = new AsyncLocalStorage<true>();
  /** Runs a statement now, or after the open transaction if it does not belong to it. */
  const inTurn = <T>(query: () => T): Promise<T> => {
    if (sqlite.inTransaction && !insideTransaction.getStore()) return serially(async () => query());
    try {
      return Promise.resolve(query());
    } catch (error) {
      return Promise.reject(error);
    }
  };
  /** `fn` in the transaction just begun: committed, or rolled back when it throws. */
  const inTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      const result = await insideTransaction.run(true, fn);
      sqlite.exec('commit');
      return result;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('rollback');
      throw error;
    }
  };
  return { serially, inTurn, inTransaction };
}

export function sqliteSql(sqlite: Database.Database): Sql {
  const { objects, arrays, firsts, statement, pragma } = statements(sqlite);
  const { serially, inTurn, inTransaction } = ordering(sqlite);
  /** Scheduled tasks under way in this process, by name (see `exclusively`). */
  const tasks = new Set<string>();
  return {
    dialect: 'sqlite',
    all: <T>(text: string, params: readonly SqlParam[] = []) =>
      inTurn(() => statement(objects, text).all(...params) as T[]),
    get: <T>(text: string, params: readonly SqlParam[] = []) =>
      inTurn(() => statement(objects, text).get(...params) as T | undefined),
    values: (text, params = []) => inTurn(() => statement(arrays, text, 'raw').all(...params) as unknown[][]),
    row: (text, params = []) => inTurn(() => statement(arrays, text, 'raw').get(...params) as unknown[] | undefined),
    pluck: <T>(text: string, params: readonly SqlParam[] = []) =>
      inTurn(() => statement(firsts, text, 'pluck').get(...params) as T | undefined),
    run: (text, params = []) => inTurn(() => ({ changes: statement(objects, text).run(...params).changes })),
    runAtCommit: (text, params = []) => inTurn(() => void statement(objects, text).run(...params)),
    transaction: (fn) =>
      serially(() => {
        // BEGIN IMMEDIATE takes the write lock up front: a writer in another process makes
        // this wait (busy_timeout) here, not fail halfway through.
        sqlite.exec('begin immediate');
        return inTransaction(fn);
      }),
    writeIfFree: (fn) =>
      serially(async () => {
        // Prepared pragmas (see `pragma`): accesses are written this way after many reads.
        const timeout = pragma('busy_timeout') as number;
        pragma('busy_timeout = 0');
        try {
          sqlite.exec('begin immediate');
        } catch (error) {
          if (isBusy(error)) return undefined;
          throw error;
        } finally {
          pragma(`busy_timeout = ${timeout}`);
        }
        return inTransaction(fn);
      }),
    // Queued like a transaction: VACUUM fails inside one. The FTS indexes keep deleted terms in
    // their segments until merged, so they are merged first.
    compact: () =>
      serially(async () => {
        optimizeSearchIndexes(sqlite);
        sqlite.exec('vacuum');
        pragma('wal_checkpoint(TRUNCATE)');
      }),
    // A prepared pragma: addTurn asks on every turn.
    dataVersion: () => inTurn(() => pragma('data_version') as number),
    location: sqlite.name,
    check: () =>
      inTurn(() => {
        const rows = statement(objects, 'pragma quick_check').all() as { quick_check: string }[];
        return {
          method: 'PRAGMA quick_check',
          problems: rows.map((row) => row.quick_check).filter((row) => row !== 'ok'),
        };
      }),
    // Queued like a transaction: the merge writes, and must not land inside an open one.
    optimize: () => serially(async () => optimizeSearchIndexes(sqlite)),
    get open() {
      return sqlite.open;
    },
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
    // One server per file: only this process's own runs of a task can overlap.
    exclusively: async (name, fn) => {
      if (tasks.has(name)) return undefined;
      tasks.add(name);
      try {
        return await fn();
      } finally {
        tasks.delete(name);
      }
    },
  };
}
