// `npm start`: the server on the embedded database (SM_DB or ./data/symbiosis.db). Host and port
// come from config (server.host / server.port), overridden by SM_HOST / SM_PORT; SM_API_TOKEN.
import { DEFAULT_DB_PATH } from './db/open.ts';
import { logger } from './logger.ts';
import { serve } from './http/serve.ts';

function portFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`SM_PORT must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}

try {
  await serve({
    dbPath: process.env.SM_DB || DEFAULT_DB_PATH,
    host: process.env.SM_HOST || undefined,
    port: portFromEnv(process.env.SM_PORT),
    token: process.env.SM_API_TOKEN,
  });
} catch (error) {
  logger.fatal({ err: error }, (error as Error).message);
  process.exit(1);
}
