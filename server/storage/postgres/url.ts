// What a Postgres store's URL names, and how to say it without the password. Kept apart from
// open-postgres.ts (which loads `pg` and PGlite) so that choosing a store (../configured-store.ts)
// and printing where it lives cost nothing for a command that ends up on a SQLite file.
import { resolve } from 'node:path';

export type PostgresTarget =
  | { kind: 'pglite'; dir: string | null; where: string }
  | { kind: 'server'; url: string; host: string; port: string; database: string; where: string };

/** Whether a URL names a Postgres store at all (a server or PGlite). */
export const isPostgresUrl = (url: string) => url.startsWith('pglite:') || /^postgres(ql)?:\/\//.test(url);

/**
 * `postgres://user:password@host:port/database`, `pglite:` (in memory) or `pglite:<dir>`, with
 * `where`: host, port and database (or PGlite's folder), safe to print. Neither `where` nor an
 * error from here ever holds the password the URL may carry (nor does the URL parser's own
 * error, which repeats its input: it is not passed on).
 */
export function parsePostgresUrl(url: string): PostgresTarget {
  if (url.startsWith('pglite:')) {
    const path = url.slice('pglite:'.length).replace(/^\/\/(?=\/|$)/, '');
    const dir = path === '' ? null : resolve(path);
    return { kind: 'pglite', dir, where: dir ? `PGlite in ${dir}` : 'PGlite in memory' };
  }
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new Error('a Postgres store needs a postgres:// URL, pglite: (in memory) or pglite:<directory>');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the Postgres URL is not valid (expected postgres://user:password@host:port/database)');
  }
  // As libpq defaults them: the database is the user's name when the path has none.
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || '(default)';
  return { kind: 'server', url, host, port, database, where: `host ${host}, port ${port}, database "${database}"` };
}
