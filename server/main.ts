// `npm start`: the server on the embedded database (SM_DB or ./data/symbiosis.db).
// Host and port come from config (server.host / server.port), overridden by SM_HOST / SM_PORT.
import { closeStore, DEFAULT_DB_PATH, openStore } from './db/open.ts';
import { buildApp } from './http/app.ts';
import { logger } from './logger.ts';

function portFromEnv(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`SM_PORT must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}

async function main() {
  const store = openStore({ path: process.env.SM_DB || DEFAULT_DB_PATH });
  let app;
  try {
    app = buildApp({
      store,
      host: process.env.SM_HOST || store.config.server.host,
      port: portFromEnv(process.env.SM_PORT, store.config.server.port),
      token: process.env.SM_API_TOKEN,
    });
    await app.start();
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
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, (error as Error).message);
  process.exit(1);
});
