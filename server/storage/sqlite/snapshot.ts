import { openDatabase } from './native-handles.ts';
import type { Store } from '../../core/kernel/store.ts';
import { queryBuilder } from '../../core/kernel/query-builder.ts';
import { sqliteSql } from './sqlite-sql.ts';

export type Snapshot = { store: Store; close(): void };

/**
 * A snapshot of `store`'s file, or on a Postgres server a repeatable-read transaction on a
 * connection of its own (Sql.snapshot). An in-memory database and PGlite (no second connection
 * possible) are read live.
 */
export async function openSnapshot(store: Store): Promise<Snapshot> {
  if (store.sql.dialect !== 'sqlite') {
    if (!store.sql.snapshot) return { store, close: () => {} };
    const pinned = await store.sql.snapshot();
    return {
      store: { ...store, db: queryBuilder(pinned.sql), sql: pinned.sql, listeners: new Set(), statements: new Map() },
      close: () => void pinned.close(),
    };
  }
  const path = store.sqlite.name;
  if (store.sqlite.memory || path === '' || path === ':memory:') return { store, close: () => {} };
  const sqlite = openDatabase(path, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    // The snapshot is taken by the first read of this transaction and kept until close().
    sqlite.exec('begin');
    sqlite.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const sql = sqliteSql(sqlite);
  return {
    store: { ...store, db: queryBuilder(sql), sql, sqlite, listeners: new Set(), statements: new Map() },
    close() {
      if (!sqlite.open) return;
      if (sqlite.inTransaction) sqlite.exec('commit');
      sqlite.close();
    },
  };
}
