// The storage port on Postgres (docs/architecture.md#store-port): a `pg` Pool (a server) or a PGlite instance (embedded,
// one connection), reached through connections.ts. The domain's SQL arrives in the spelling
// SQLite and Postgres share, with `?` parameters (sql-text.ts rewrites it), and its results read
// as SQLite's do (connections.ts's type parsers).
//
// Writes are serialized like SQLite's: `transaction` takes one database-wide advisory lock right
// after BEGIN, which a writer in another process waits for (as SQLite's BEGIN IMMEDIATE waits
// for the file lock), and `writeIfFree` tries it and gives up when it is taken. The domain's
// read-then-write steps (is this fact a duplicate? which job is next?) rely on that order;
// Postgres's row locks alone would let two writers interleave between the read and the write.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { ChangeEvent, Hearing, Sql, SqlParam } from '../../core/kernel/store.ts';
import { logger } from '../../logger.ts';
import { type AtCommit, type Client, pgliteClient, poolClient, type Query } from './connections.ts';
import { asDatabaseFault } from './faults.ts';
import { announcer, CHANGES_CHANNEL, receiver } from './notify.ts';
import { toPostgresSql } from './sql-text.ts';

/** The advisory lock key every writer of this database takes ("smwr"). */
const WRITE_LOCK = 0x736d7772;
/** How long a writer waits for another process's write, as SQLite's busy_timeout does. */
const LOCK_WAIT = '5s';

/** A task's name as a 32-bit key (FNV-1a). */
function taskKey(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash | 0;
}

class LockTaken extends Error {}

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release|start\s+transaction)\b/i;

/** The error with the statement it came from: Postgres's messages rarely say which one. */
function withStatement(error: unknown, text: string): unknown {
  if (error instanceof Error && !('statement' in error)) {
    Object.assign(error, { statement: text });
    error.message = `${error.message} (in: ${text.length > 500 ? `${text.slice(0, 500)}…` : text})`;
  }
  return error;
}

/** The GIN indexes of this schema (the tsvector columns'), whose pending entries optimize() merges. */
const GIN_INDEXES = `select c.relname from pg_class c join pg_am a on a.oid = c.relam
  where a.amname = 'gin' and c.relnamespace = current_schema()::regnamespace order by c.relname`;
/** Page checksum failures Postgres has counted in this database (null when checksums are off). */
const CHECKSUMS = `select current_setting('data_checksums') = 'on', checksum_failures
  from pg_stat_database where datname = current_database()`;

/** What the parts of the port share: the client, the transaction in the async context, and how faults read. */
type Port = {
  client: Client;
  /** The transaction this async context runs in: its queries go to its connection, from any depth. */
  current: AsyncLocalStorage<Query>;
  fault: (error: unknown) => unknown;
  run: Query;
  /** One at a time from this process, in order (transactions, and what must not overlap one). */
  serially: <T>(body: () => Promise<T>) => Promise<T>;
};

/**
 * Database faults as DATABASE_UNAVAILABLE, said once when the database stops answering and once
 * when it answers again, not per request.
 */
function faultLog(location: string) {
  let reachable = true;
  return {
    fault(error: unknown): unknown {
      const converted = asDatabaseFault(error);
      if (converted !== error && reachable) {
        reachable = false;
        logger.warn(
          { where: location, err: (error as Error).message },
          'the database cannot be reached: requests fail with DATABASE_UNAVAILABLE until it answers again',
        );
      }
      return converted;
    },
    answered() {
      if (reachable) return;
      reachable = true;
      logger.info({ where: location }, 'the database answers again');
    },
  };
}

/** Runs the domain's statements on the async context's transaction, or on any connection. */
function runner(client: Client, current: AsyncLocalStorage<Query>, faults: ReturnType<typeof faultLog>): Query {
  return async (text, params, arrays) => {
    // store.db.transaction() sends BEGIN and COMMIT through here, where they could land on two
    // pooled connections (and would not take the write lock): transactions are write()'s.
    if (TRANSACTION_CONTROL.test(text))
      throw new Error(`${text.trim()} is not run through the port: use write(store, fn) for a transaction`);
    const sqlText = toPostgresSql(text);
    try {
      const result = await (current.getStore() ?? client.query)(sqlText, params, arrays);
      faults.answered();
      return result;
    } catch (error) {
      const converted = faults.fault(error);
      throw converted === error ? withStatement(error, sqlText) : converted;
    }
  };
}

/** One transaction at a time from this process; the others wait without holding a pooled connection. */
function inOrder(): Port['serially'] {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(body: () => Promise<T>): Promise<T> => {
    const result = queue.then(body, body);
    queue = result.catch(() => undefined);
    return result;
  };
}

/**
 * Write transactions under the database-wide lock, and what goes with their COMMIT in one round
 * trip: notifications and runAtCommit's writes (see connections.ts).
 */
function transactions(port: Port) {
  const { client, current } = port;
  // Statements of the open transaction (one at a time, see `serially`) to send with its COMMIT.
  let atCommit: AtCommit[] = [];
  // The write transactions' connections (a snapshot's is in `current` too, but has no COMMIT to ride).
  const writing = new WeakSet<Query>();
  const sendAtCommit = () => {
    const sent = atCommit;
    atCommit = [];
    return sent;
  };
  const begin = (wait: boolean) =>
    wait
      ? `select set_config('lock_timeout', '${LOCK_WAIT}', true), pg_advisory_xact_lock(${WRITE_LOCK})`
      : `select pg_try_advisory_xact_lock(${WRITE_LOCK})`;
  const inTransaction = <T>(fn: () => Promise<T>, wait: boolean): Promise<T> =>
    port.serially(() => {
      atCommit = [];
      return client
        .transaction(
          async (query, opened) => {
            if (!wait && !client.single && !opened?.[0]) throw new LockTaken();
            // `fn` may return a drizzle query, which runs when awaited: resolved here, inside the
            // context, or it would run on another connection (and wait for this one on PGlite).
            writing.add(query);
            return current.run(query, () => Promise.resolve(fn()));
          },
          begin(wait),
          sendAtCommit,
        )
        .catch((error: unknown) => {
          // A connection lost at BEGIN, at the lock or at COMMIT: the transaction did not commit.
          throw port.fault(error);
        });
    });
  return {
    transaction: <T>(fn: () => Promise<T>) => (current.getStore() ? fn() : inTransaction(fn, true)),
    writeIfFree: async <T>(fn: () => Promise<T>) => {
      if (current.getStore()) return fn();
      try {
        return await inTransaction(fn, false);
      } catch (error) {
        if (error instanceof LockTaken) return undefined;
        throw error;
      }
    },
    /** Whether statements can go with the open write's COMMIT: not outside one, nor on PGlite (nothing to save). */
    deferring(): boolean {
      const query = current.getStore();
      return query !== undefined && writing.has(query) && !client.single;
    },
    /** Sends `statements` with the open write's COMMIT (when `deferring()`). */
    defer(...statements: AtCommit[]) {
      atCommit.push(...statements);
    },
  };
}

/** The maintenance a doctor and the nightly job ask for: compact, check, optimize. */
function maintenance({ client, run, fault, serially }: Port): Pick<Sql, 'compact' | 'check' | 'optimize'> {
  return {
    // VACUUM FULL rewrites every table and index into new files, so a deleted row's text is no
    // longer in the database's files (the WAL keeps it until recycled). It cannot run in a
    // transaction; queued like one so none of this process's is open meanwhile.
    compact: () =>
      serially(
        async () =>
          void (await client.query('vacuum full', [], false).catch((error: unknown) => Promise.reject(fault(error)))),
      ),
    // Postgres checks what it reads as it reads it; what a doctor can ask is whether a page
    // checksum failed, which it counts when the cluster was made with checksums (initdb -k).
    check: async () => {
      const [on, failures] = ((await run(CHECKSUMS, [], true)).rows[0] as [number, number | null] | undefined) ?? [
        0,
        null,
      ];
      if (!on)
        return {
          method: 'data checksums are off (initdb --data-checksums): Postgres cannot tell a damaged page',
          problems: [],
        };
      return {
        method: 'data checksums on, pg_stat_database.checksum_failures',
        problems: failures ? [`${failures} page checksum failure(s): see the server log`] : [],
      };
    },
    // A GIN index takes new rows into a pending list that every search reads through, merged
    // when it grows past gin_pending_list_limit or at vacuum; merging it at night keeps
    // searches on the index proper, as merging FTS5 segments does on SQLite.
    optimize: async () => {
      const started = performance.now();
      const indexes = ((await run(GIN_INDEXES, [], true)).rows as [string][]).map(([name]) => name);
      for (const name of indexes) await run('select gin_clean_pending_list(cast(? as regclass))', [name], true);
      return { indexes, ms: Math.round((performance.now() - started) * 100) / 100 };
    },
  };
}

/** Other nodes' changes: announced with this node's commits, heard on a channel, and the data version caches key on. */
function changes(port: Port, commit: { deferring(): boolean; defer(...statements: AtCommit[]): void }) {
  const { client, run } = port;
  const node = announcer();
  /** Hearings connected now, and a count of their connects and disconnects (see dataVersion). */
  let listening = 0;
  let epoch = 0;
  const hearings = new Set<Hearing>();
  const sql: Pick<Sql, 'dataVersion' | 'announce' | 'listen'> = {
    // The WAL insert position moves with every committed write of any connection, this one's
    // included (SQLite's data_version leaves out its own), and with maintenance that writes WAL
    // (vacuum, a read pruning a page): a cache keyed on it refreshes for nothing then, never
    // misses a commit. PGlite has it too. Read-only transactions do not move it.
    dataVersion: async () => {
      // While this node hears the others, their commits reach its caches as events (as its own
      // do): the version moves only when the hearing starts or stops, when events may be missed.
      if (listening > 0) return -epoch;
      return Number(
        ((await run("select pg_current_wal_insert_lsn() - '0/0'::pg_lsn", [], true)).rows[0] as unknown[])[0],
      );
    },
    // In a transaction: with its COMMIT on a server, or on its connection (PGlite), which
    // Postgres delivers at commit. Outside one: at once, on its own.
    announce: async (events: readonly ChangeEvent[]) => {
      const payloads = node.payloads(events);
      if (commit.deferring())
        commit.defer(
          ...payloads.map((payload) => `select pg_notify('${CHANGES_CHANNEL}', ${pg.escapeLiteral(payload)})`),
        );
      else for (const payload of payloads) await run('select pg_notify(?, ?)', [CHANGES_CHANNEL, payload], true);
    },
    listen: (deliver) => {
      const heard = receiver(node.node);
      const channel = client.listen(
        CHANGES_CHANNEL,
        (payload) => {
          for (const event of heard.take(payload)) deliver(event);
        },
        heard.reset,
        (up) => {
          listening += up ? 1 : -1;
          epoch++;
        },
      );
      const hearing: Hearing = {
        ready: channel.ready,
        stop: async () => {
          hearings.delete(hearing);
          await channel.stop();
        },
      };
      hearings.add(hearing);
      return hearing;
    },
  };
  return { sql, stopHearings: () => Promise.all([...hearings].map((hearing) => hearing.stop())) };
}

/** A read-only view on a pinned connection (a server only): the view's statements go to it as a transaction's do. */
function snapshots(sql: Sql, { client, current, fault }: Port): Sql['snapshot'] {
  const pin = client.pin;
  if (!pin) return undefined;
  return async () => {
    const pinned = await pin().catch((error: unknown) => Promise.reject(fault(error)));
    const on =
      <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
      (...args: A) =>
        current.run(pinned.query, () => method(...args));
    const view: Sql = {
      ...sql,
      all: on(sql.all) as Sql['all'],
      get: on(sql.get) as Sql['get'],
      values: on(sql.values),
      row: on(sql.row),
      pluck: on(sql.pluck) as Sql['pluck'],
      run: on(sql.run),
      snapshot: undefined,
    };
    return { sql: view, close: pinned.release };
  };
}

/** `location`: where the data lives, safe to print (see url.ts). */
export function postgresSql(target: pg.Pool | PGlite, location = 'Postgres'): Sql {
  const client = 'connect' in target ? poolClient(target) : pgliteClient(target);
  const current = new AsyncLocalStorage<Query>();
  const faults = faultLog(location);
  const run = runner(client, current, faults);
  const port: Port = { client, current, fault: faults.fault, run, serially: inOrder() };
  const { transaction, writeIfFree, ...commit } = transactions(port);
  const heard = changes(port, commit);
  // This process's scheduled tasks under way, by name (a session lock is reentrant within its
  // session, and PGlite has one session: the lock alone would not refuse this process's own).
  const tasks = new Set<string>();
  const sql: Sql = {
    dialect: 'postgres',
    all: async <T>(text: string, params: readonly SqlParam[] = []) => (await run(text, params, false)).rows as T[],
    get: async <T>(text: string, params: readonly SqlParam[] = []) =>
      (await run(text, params, false)).rows[0] as T | undefined,
    values: async (text, params = []) => (await run(text, params, true)).rows as unknown[][],
    // The whole result is read: a statement asked for one row is expected to select few.
    row: async (text, params = []) => (await run(text, params, true)).rows[0] as unknown[] | undefined,
    pluck: async <T>(text: string, params: readonly SqlParam[] = []) =>
      ((await run(text, params, true)).rows[0] as unknown[] | undefined)?.[0] as T | undefined,
    run: async (text, params = []) => ({ changes: (await run(text, params, false)).changes }),
    // A transaction inside another joins it (write() already does; this keeps a direct call from waiting on itself).
    transaction,
    writeIfFree,
    runAtCommit: async (text, params = []) => {
      if (commit.deferring()) commit.defer({ text: toPostgresSql(text), params });
      else await run(text, params, false);
    },
    ...maintenance(port),
    ...heard.sql,
    location,
    get open() {
      return client.open;
    },
    close: async () => {
      await heard.stopHearings();
      if (client.open) await client.close();
    },
    exclusively: async (name, fn) => {
      if (tasks.has(name)) return undefined;
      tasks.add(name);
      try {
        return await client.holding(taskKey(name), fn);
      } catch (error) {
        throw faults.fault(error);
      } finally {
        tasks.delete(name);
      }
    },
  };
  const snapshot = snapshots(sql, port);
  if (snapshot) sql.snapshot = snapshot;
  return sql;
}
