// Running the server until a signal: `npm start` (server/main.ts) and `sm serve` both use this.
import { VERSION } from '../services/kernel.ts';
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { Clock } from '../core/kernel/clock.ts';
import { closeStore } from '../storage/sqlite/open.ts';
import { describeStore, openConfiguredStore, type StoreChoice } from '../storage/configured-store.ts';
import { logger } from '../logger.ts';
import { holdYoungGeneration } from '../young-generation.ts';
import { buildApp } from './app.ts';
import { formatBanner } from './banner.ts';

export type ServeOptions = {
  /** The SQLite file or the Postgres database (chooseStore: --db, SM_DATABASE_URL, SM_DB). */
  database: StoreChoice;
  clock?: Clock;
  /** Defaults: config server.host / server.port. */
  host?: string;
  port?: number;
  token?: string;
  jobs?: boolean;
  scheduler?: boolean;
};

/**
 * How far V8 lets the heap grow past what its last full collection kept, in percent. Its default
 * grows up to 4x for a program that allocates fast, as a busy server does: request garbage took
 * the server from 90 MB idle to 250-300 MB under 16 writing clients (bench:load), with a heap of
 * which a full collection kept about 40 MB; at 30 %, about 65 MB less. Collections come sooner
 * (concurrent, mostly off the main thread; CPU per turn within noise of before) and the old space
 * stays near what is live. V8 reads it at each collection, so it applies when set after start
 * (as does the young generation's growth factor: server/young-generation.ts).
 */
const HEAP_GROWING_PERCENT = 30;

/** How long a signalled shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 5_000;

/** Listens, then on SIGINT/SIGTERM stops accepting, lets in-flight writes finish and closes the db. */
export async function serve(options: ServeOptions): Promise<{ url: string }> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  holdYoungGeneration();
  const { database } = options;
  const created = database.backend === 'sqlite' && !existsSync(database.path);
  // Long-running: WAL checkpoints (and their fsyncs) go to a thread, out of addTurn's commits (SQLite).
  const store = await openConfiguredStore(database, { clock: options.clock, backgroundCheckpoints: true });
  let app;
  let url: string;
  try {
    app = buildApp({
      store,
      host: options.host ?? store.config.server.host,
      port: options.port ?? store.config.server.port,
      token: options.token || undefined,
      jobs: options.jobs,
      scheduler: options.scheduler,
    });
    ({ url } = await app.start());
    // A person at a terminal gets the facts of this start at a glance; a supervisor reads the logs.
    if (process.stdout.isTTY) {
      process.stdout.write(
        formatBanner({
          version: VERSION,
          url,
          dbPath: describeStore(database),
          created,
          token: Boolean(options.token),
          config: store.config,
        }),
      );
    }
  } catch (error) {
    await closeStore(store);
    throw error;
  }
  const running = app;
  let signalled = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    // Whatever happens below (a stuck connection, a log pipe gone), the process ends within 5 s.
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    logger.info({ signal }, 'shutting down');
    let code = 0;
    try {
      await running.stop();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      code = 1;
    } finally {
      await closeStore(store);
    }
    process.exit(code);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return { url };
}
