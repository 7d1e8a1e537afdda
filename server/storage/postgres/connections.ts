// What the Postgres port (postgres-sql.ts) needs of a connection, over a `pg` Pool (a server)
// or PGlite (embedded, one connection): a query on any connection, a transaction on one, a
// session lock, a LISTEN. Results must read as SQLite's do: int8 and numeric come back as JS
// numbers, booleans as 1/0 and bytea as Buffers (the type parsers below, set on every query so
// the port does not depend on how its client was built).
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import type { Hearing, SqlParam } from '../../core/kernel/store.ts';
import { listenOnServer } from './notify.ts';

/** The first key of the session locks that keep a scheduled task to one node ("smtk"); the second is the task's name hashed. */
const NODE_TASKS = 0x736d746b;

const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;
const BYTEA = 17;

// Ids and epoch-ms times fit a double; counts and sums (int8, numeric) are read as SQLite's are.
const toNumber = (value: string) => Number(value);
const toFlag = (value: string) => (value === 't' ? 1 : 0);
const hexToBuffer = (value: string) => Buffer.from(value.slice(2), 'hex');

const PGLITE_PARSERS = { [INT8]: toNumber, [NUMERIC]: toNumber, [BOOL]: toFlag, [BYTEA]: hexToBuffer };
/** node-postgres already reads bytea as a Buffer. */
const PG_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    if (oid === BOOL) return toFlag;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * A statement sent with COMMIT: text already in Postgres's spelling (a notification), or a
 * parameterized statement (a write nothing in the transaction reads back).
 */
export type AtCommit = string | { text: string; params: readonly SqlParam[] };

/** One statement on one connection; `arrays`: rows as arrays in select order. */
export type Query = (
  text: string,
  params: readonly SqlParam[],
  arrays: boolean,
) => Promise<{ rows: unknown[]; changes: number }>;

/** What the port needs of a client: a query on any connection, and a transaction on one. */
export interface Client {
  query: Query;
  /**
   * `fn` in a transaction on one connection. `opening`: a statement without parameters sent with
   * BEGIN in one round trip (taking the write lock); its first row is handed to `fn`. `closing`:
   * statements sent with COMMIT. A `single` client (PGlite) takes neither: there is no lock to
   * take, and no round trip to save.
   */
  transaction<T>(
    fn: (query: Query, opened: unknown[] | undefined) => Promise<T>,
    opening?: string,
    closing?: () => readonly AtCommit[],
  ): Promise<T>;
  /** One connection only (PGlite): no other writer can exist, so no lock is needed. */
  single: boolean;
  /** Runs `fn` holding the session advisory lock `key`, or gives up (`undefined`) when another session holds it. */
  holding<T>(key: number, fn: () => Promise<T>): Promise<T | undefined>;
  /** A connection of its own in a read-only repeatable-read transaction, until `release()` (a server only). */
  pin?(): Promise<{ query: Query; release(): Promise<void> }>;
  /** Hears `channel`'s payloads until `stop()` (`reconnected`: after a lost connection came back). */
  listen(
    channel: string,
    hear: (payload: string) => void,
    reconnected: () => void,
    up: (listening: boolean) => void,
  ): Hearing;
  readonly open: boolean;
  close(): Promise<void>;
}

/**
 * Statement names by text. A named statement is parsed and planned once per connection, then
 * only bound and run: a third of the time of most of the domain's small statements. Texts made
 * per call (a list spelled out) would grow this without end, so past the cap they run unnamed.
 */
class StatementNames {
  static readonly CAP = 2000;
  private readonly names = new Map<string, string>();
  of(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < StatementNames.CAP)
      this.names.set(text, (name = `sm_${this.names.size}`));
    return name;
  }
}

/** A parameter as a literal of no type yet, which EXECUTE casts to the parameter's type as a bound value would be. */
function untypedLiteral(value: SqlParam | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? `'${value}'` : 'null';
  if (typeof value === 'bigint') return `'${value}'`;
  if (typeof value === 'string') return pg.escapeLiteral(value);
  return `'\\x${Buffer.from(value).toString('hex')}'`;
}

/**
 * The COMMIT message of a transaction on `connection`: its statements, then `commit`, in one
 * simple-protocol message (which takes no parameters). A statement this connection has
 * prepared goes as `execute name(values)`, bound and run with its plan like a named statement
 * (written out as literals, a statement is parsed and planned each time: as slow as the round
 * trip saved). One it has not prepared yet runs now, on its own (after those before it), which
 * prepares it.
 */
async function commitMessage(
  connection: pg.PoolClient,
  names: StatementNames,
  closing: readonly AtCommit[],
): Promise<string> {
  const prepared = (connection as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
    .parsedStatements;
  const sent: string[] = [];
  for (const statement of closing) {
    if (typeof statement === 'string') sent.push(statement);
    else {
      const name = names.of(statement.text);
      if (name !== undefined && prepared[name] === statement.text)
        sent.push(
          statement.params.length === 0
            ? `execute ${name}`
            : `execute ${name}(${statement.params.map(untypedLiteral).join(', ')})`,
        );
      else {
        // In their order: those before it go first (notifications are delivered at commit anyway).
        if (sent.length > 0) await connection.query(sent.splice(0).join('; '));
        await poolQuery(connection, names)(statement.text, statement.params, false);
      }
    }
  }
  return [...sent, 'commit'].join('; ');
}

function poolQuery(runner: pg.Pool | pg.PoolClient, names: StatementNames): Query {
  return async (text, params, arrays) => {
    const config = {
      name: names.of(text),
      text,
      values: params as unknown[],
      types: PG_TYPES,
      ...(arrays ? { rowMode: 'array' as const } : {}),
    };
    const result = await runner.query(config as pg.QueryConfig);
    return { rows: result.rows, changes: result.rowCount ?? 0 };
  };
}

export function poolClient(pool: pg.Pool): Client {
  const names = new StatementNames();
  return {
    query: poolQuery(pool, names),
    transaction: async (fn, opening, closing) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        let opened: unknown[] | undefined;
        if (opening) {
          // Simple-query protocol: both statements in one message, one round trip.
          const results = (await client.query({
            text: `begin; ${opening}`,
            rowMode: 'array',
            types: PG_TYPES,
          } as pg.QueryConfig)) as unknown as pg.QueryResult[];
          opened = results[1]!.rows[0] as unknown[] | undefined;
        } else await client.query('begin');
        const result = await fn(poolQuery(client, names), opened);
        await client.query(closing ? await commitMessage(client, names, closing()) : 'commit');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is dropped rather than handed out again.
        await client.query('rollback').catch((failure: Error) => (broken = failure));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    single: false,
    // On a connection of its own, the task's length: the lock lasts as long as its session.
    holding: async (key, fn) => {
      const session = await pool.connect();
      let broken: Error | undefined;
      try {
        const { rows } = await session.query<{ held: boolean }>('select pg_try_advisory_lock($1, $2) as held', [
          NODE_TASKS,
          key,
        ]);
        if (!rows[0]!.held) return undefined;
        try {
          return await fn();
        } finally {
          await session
            .query('select pg_advisory_unlock($1, $2)', [NODE_TASKS, key])
            .catch((failure: Error) => (broken = failure));
        }
      } finally {
        session.release(broken);
      }
    },
    listen: (channel, hear, reconnected, up) => listenOnServer(pool.options, channel, hear, reconnected, up),
    pin: async () => {
      const connection = await pool.connect();
      try {
        // The snapshot is taken by the transaction's first statement, not by BEGIN: taken now.
        await connection.query('begin isolation level repeatable read read only; select 1');
      } catch (error) {
        connection.release(error as Error);
        throw error;
      }
      let released = false;
      return {
        query: poolQuery(connection, names),
        release: async () => {
          if (released) return;
          released = true;
          let broken: Error | undefined;
          await connection.query('commit').catch((failure: Error) => (broken = failure));
          connection.release(broken);
        },
      };
    },
    get open() {
      return !pool.ended;
    },
    close: () => pool.end(),
  };
}

function pgliteQuery(runner: PGlite | Transaction): Query {
  return async (text, params, arrays) => {
    const result = await runner.query(text, params as unknown[], {
      rowMode: arrays ? 'array' : 'object',
      parsers: PGLITE_PARSERS,
    });
    return { rows: result.rows, changes: result.affectedRows ?? 0 };
  };
}

export function pgliteClient(pglite: PGlite): Client {
  return {
    // PGlite's own mutex makes a query outside the transaction wait for it to end (and keeps a
    // failing outside query from aborting it), while the transaction's queries run on `tx`.
    query: pgliteQuery(pglite),
    // One connection: no other writer, so no lock to take (`opening` is the lock).
    transaction: (fn) => pglite.transaction((tx) => fn(pgliteQuery(tx), undefined)),
    single: true,
    // One process owns a PGlite: the port's own bookkeeping (`exclusively`) is all it needs.
    holding: (_key, fn) => fn(),
    listen: (channel, hear) => {
      const unlisten = pglite.listen(channel, hear);
      return { ready: unlisten.then(() => undefined), stop: async () => (await unlisten)() };
    },
    get open() {
      return !pglite.closed;
    },
    close: () => pglite.close(),
  };
}
