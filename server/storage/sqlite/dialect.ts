// What SQLite says in its own SQL, given to every store opened on a SQLite file.
import type { Dialect } from '../../core/kernel/store.ts';
import { FTS5_INDEX } from './fts5-index.ts';
import { SQLITE_STATEMENTS } from './statements.ts';
import { SQLITE_VECTORS } from './vector-sql.ts';

export const SQLITE_DIALECT: Dialect = {
  name: 'sqlite',
  textIndex: FTS5_INDEX,
  vectors: SQLITE_VECTORS,
  statements: SQLITE_STATEMENTS,
};
