// What every embedded CLI command needs: the clock (SM_NOW), the store (--db / SM_DB) and output.
import { fixedClock, parseTime, systemClock, type Clock } from '../core/clock.ts';
import { badInput } from '../core/errors.ts';
import type { Store } from '../core/store.ts';
import { closeStore, DEFAULT_DB_PATH, openStore } from '../db/open.ts';
import { createRuntime, type Runtime } from '../runtime.ts';

export type GlobalOptions = { db?: string; json?: boolean };

/** SM_NOW (ISO-8601 or epoch ms) pins the clock for one process: imports, simulations, tests. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const raw = env.SM_NOW;
  if (raw === undefined || raw === '') return systemClock;
  const at = parseTime(raw);
  if (at === null) throw badInput(`SM_NOW: ${JSON.stringify(raw)} is neither ISO-8601 nor epoch milliseconds`);
  return fixedClock(at);
}

export const dbPath = (options: GlobalOptions) => options.db ?? process.env.SM_DB ?? DEFAULT_DB_PATH;

/** Opens the embedded store for one command and always closes it. */
export async function withStore<T>(options: GlobalOptions, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const clock = clockFromEnv();
  const store = openStore({ path: dbPath(options), clock });
  try {
    return await fn(store);
  } finally {
    closeStore(store);
  }
}

/** The store plus its configured providers (LLM), for commands that may call them. */
export function withRuntime<T>(options: GlobalOptions, fn: (runtime: Runtime) => T | Promise<T>): Promise<T> {
  return withStore(options, (store) => fn(createRuntime(store)));
}
