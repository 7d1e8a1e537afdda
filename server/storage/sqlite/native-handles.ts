// Opening SQLite connections so that Node 24 does not abort the process. Node 24 changed
// node::ObjectWrap: its destructor now removes an environment cleanup hook and asserts that a
// Node environment is current. better-sqlite3 12 wraps each Database and Statement in one, and V8
// may collect them when no environment is current (a GC run from a native callback or a background
// task), so the process dies on `Assertion failed: (env) != nullptr` (SIGABRT): on Node 24.21 about
// every other `sm` command did, at its end. better-sqlite3 13 (Node-API) does not, but it needs
// Node >= 22, and this project runs on 20.19 too. So from Node 24 on, no connection and no
// statement is left to the garbage collector: each stays referenced until the process ends, when
// Node's own cleanup deletes them with an environment current. That is a few hundred bytes per
// statement prepared, so code that runs often prepares once and reuses (sqlite-sql.ts's caches;
// its pragmas are prepared statements too, where Database.pragma() prepares anew on every call).
import Database from 'better-sqlite3';

const KEEPS = Number(process.versions.node.split('.')[0]) >= 24;
const kept: object[] = [];

let patched = false;

/**
 * Keeps every statement the native connection prepares: better-sqlite3's prepare(), and the
 * ones pragma() and transaction() prepare straight on the native object, which no JS-level
 * wrapper sees. The native class is only reachable through a connection (under a symbol key).
 */
function keepStatementsOf(sqlite: Database.Database) {
  if (patched) return;
  for (const key of Object.getOwnPropertySymbols(sqlite)) {
    const native = (sqlite as unknown as Record<symbol, unknown>)[key];
    const proto =
      native && typeof native === 'object'
        ? (Object.getPrototypeOf(native) as { prepare?: (...args: unknown[]) => unknown })
        : null;
    if (!proto || typeof proto.prepare !== 'function') continue;
    const prepare = proto.prepare;
    proto.prepare = function keptPrepare(this: unknown, ...args: unknown[]) {
      const statement = prepare.apply(this, args);
      kept.push(statement as object);
      return statement;
    };
    patched = true;
    return;
  }
  throw new Error(
    'better-sqlite3 changed: its native connection was not found, so its statements cannot be kept (Node 24 would abort)',
  );
}

/** A better-sqlite3 connection, kept from the garbage collector where that would abort the process (Node 24+). */
export function openDatabase(path: string, options?: Database.Options): Database.Database {
  const sqlite = new Database(path, options);
  if (KEEPS) {
    keepStatementsOf(sqlite);
    kept.push(sqlite);
  }
  return sqlite;
}
