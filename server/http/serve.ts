// Running the server until a signal: `npm start` (server/main.ts) and `sm serve` both use this.
import { existsSync } from 'node:fs';
import type { Clock } from '../core/clock.ts';
import { VERSION } from '../core/version.ts';
import { closeStore, openStore } from '../db/open.ts';
import { logger } from '../logger.ts';
import { buildApp } from './app.ts';
import { formatBanner } from './banner.ts';

export type ServeOptions = {
  dbPath: string;
  clock?: Clock;
  /** Defaults: config server.host / server.port. */
  host?: string;
  port?: number;
  token?: string;
  jobs?: boolean;
  scheduler?: boolean;
};

/** How long a signalled shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 5_000;

/** Listens, then on SIGINT/SIGTERM stops accepting, lets in-flight writes finish and closes the db. */
export async function serve(options: ServeOptions): Promise<{ url: string }> {
  // Long-running: WAL checkpoints (and their fsyncs) go to a thread, out of addTurn's commits.
  const created = !existsSync(options.dbPath);
  const store = openStore({ path: options.dbPath, clock: options.clock, backgroundCheckpoints: true });
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
      process.stdout.write(formatBanner({ version: VERSION, url, dbPath: options.dbPath, created, token: Boolean(options.token), config: store.config }));
    }
  } catch (error) {
    closeStore(store);
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
      closeStore(store);
    }
    process.exit(code);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return { url };
}
