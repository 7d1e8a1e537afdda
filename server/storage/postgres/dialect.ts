// What Postgres says in its own SQL, given to every store opened on Postgres (a server or PGlite).
import type { Dialect } from '../../core/kernel/store.ts';
import { TSVECTOR_INDEX } from './tsvector-index.ts';
import { POSTGRES_STATEMENTS } from './statements.ts';
import { PGVECTOR_VECTORS, PLAIN_VECTORS } from './vector-sql.ts';

const dialect = (vectors: Dialect['vectors']): Dialect => ({
  name: 'postgres',
  textIndex: TSVECTOR_INDEX,
  vectors,
  statements: POSTGRES_STATEMENTS,
});
const WITH_PGVECTOR = dialect(PGVECTOR_VECTORS);
const WITHOUT_PGVECTOR = dialect(PLAIN_VECTORS);

/** The dialect of a database with pgvector installed (`vec`) or without it. */
export const postgresDialect = (vec: boolean) => (vec ? WITH_PGVECTOR : WITHOUT_PGVECTOR);
