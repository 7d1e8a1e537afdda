// Which store a process opens: the one decision `npm start`, `sm serve`, every embedded `sm`
// command and `sm mcp` share. SM_DATABASE_URL (postgres://…, pglite: or pglite:<dir>) selects
// Postgres; without it, the SQLite file as before (SM_DB, else the default in the user's data
// folder). The CLI's --db always names a SQLite file and wins over both variables, as a flag
// wins over the environment; SM_DB and SM_DATABASE_URL set together are refused, since either
// could be the one meant and memories written to the other would be lost from sight.
//
// Here, beside sqlite/ and postgres/ (it opens either), so neither of them imports the other.
// The Postgres code (pg, PGlite) loads only when chosen.
import type { Clock } from '../core/kernel/clock.ts';
import { badInput } from '../core/kernel/errors.ts';
import type { Store } from '../core/kernel/store.ts';
import { openStore } from './sqlite/open.ts';
import { resolveDbPath } from './sqlite/paths.ts';
import { isPostgresUrl, parsePostgresUrl } from './postgres/url.ts';

export type StoreChoice =
  /** `named`: --db or SM_DB chose the file (not the default location). */
  | { backend: 'sqlite'; path: string; named: boolean }
  /** `where`: host, port and database (or PGlite's folder), safe to print. */
  | { backend: 'postgres'; url: string; where: string };

export type ChooseOptions = {
  /** The CLI's --db: a SQLite file, whatever the environment says. */
  db?: string;
  env?: NodeJS.ProcessEnv;
};

/** The one place that decides between the SQLite file and Postgres. Bad settings are bad input (exit 2), naming the variable. */
export function chooseStore({ db, env = process.env }: ChooseOptions = {}): StoreChoice {
  if (db) return { backend: 'sqlite', path: resolveDbPath(db, env), named: true };
  const url = env.SM_DATABASE_URL;
  if (!url) return { backend: 'sqlite', path: resolveDbPath(undefined, env), named: Boolean(env.SM_DB) };
  if (env.SM_DB)
    throw badInput(
      'SM_DB and SM_DATABASE_URL are both set: unset one of them (or pass --db PATH to use that SQLite file)',
    );
  // Only the scheme is repeated: the rest of a URL may hold a password.
  if (!isPostgresUrl(url)) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    throw badInput(
      `SM_DATABASE_URL: expected postgres://user:password@host:port/database, pglite: or pglite:<directory>, got ${scheme ? `a "${scheme}" URL` : 'no URL'} (a SQLite file goes in SM_DB)`,
    );
  }
  try {
    return { backend: 'postgres', url, where: parsePostgresUrl(url).where };
  } catch (error) {
    throw badInput(`SM_DATABASE_URL: ${(error as Error).message}`);
  }
}

/** Where a choice keeps its data, for a banner or a log line: a file path, or Postgres's host, port and database. */
export const describeStore = (choice: StoreChoice) =>
  choice.backend === 'sqlite'
    ? choice.path
    : choice.where.startsWith('PGlite')
      ? choice.where
      : `Postgres at ${choice.where}`;

export type ConfiguredOpenOptions = {
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Highest-precedence config overrides. */
  config?: Record<string, unknown>;
  /** SQLite: WAL checkpoints on a worker thread (long-running processes). Postgres checkpoints itself. */
  backgroundCheckpoints?: boolean;
};

/** Opens what `choice` names (chooseStore's answer): an unreachable Postgres is one error naming host, port and database. */
export async function openConfiguredStore(choice: StoreChoice, options: ConfiguredOpenOptions = {}): Promise<Store> {
  const { clock, env, config } = options;
  if (choice.backend === 'sqlite')
    return openStore({ path: choice.path, clock, env, config, backgroundCheckpoints: options.backgroundCheckpoints });
  const { openPostgresStore } = await import('./postgres/open-postgres.ts');
  return openPostgresStore({ url: choice.url, clock, env, config });
}
