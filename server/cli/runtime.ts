// Global options and the clock every command shares.
import { fixedClock, parseTime, systemClock, type Clock } from '../core/clock.ts';
import { badInput } from '../core/errors.ts';
import { DEFAULT_DB_PATH } from '../db/paths.ts';

export type GlobalOptions = { db?: string; json?: boolean; url?: string; token?: string };

/** SM_NOW (ISO-8601 or epoch ms) pins the clock for one process: imports, simulations, tests. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const raw = env.SM_NOW;
  if (raw === undefined || raw === '') return systemClock;
  const at = parseTime(raw);
  if (at === null) throw badInput(`SM_NOW: ${JSON.stringify(raw)} is neither ISO-8601 nor epoch milliseconds`);
  return fixedClock(at);
}

export const dbPath = (options: GlobalOptions) => options.db ?? process.env.SM_DB ?? DEFAULT_DB_PATH;
