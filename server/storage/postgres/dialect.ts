// What Postgres says in its own SQL, given to every store opened on Postgres (a server or PGlite).
import type { Dialect } from '../../core/kernel/store.ts';
import { TSVECTOR_INDEX } from './tsvector-index.ts';

export const POSTGRES_DIALECT: Dialect = { name: 'postgres', textIndex: TSVECTOR_INDEX };
