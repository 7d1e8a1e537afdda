// `sm serve` as a child process on a database file (or, with `db` null, on what the environment
// names: SM_DATABASE_URL, SM_DB); resolves with its GraphQL URL. The spawn lives in scripts/ so
// the benchmarks start the server the same way.
import { startSmServe } from '../../scripts/sm-serve.ts';

export function smServe(db: string | null, args: string[] = [], env: Record<string, string> = {}) {
  return startSmServe({ db, args, env, startTimeoutMs: 30_000 });
}
