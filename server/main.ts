// `npm start`: the server on the database the CLI would use: SM_DATABASE_URL (Postgres), else the
// SQLite file (SM_DB, else symbiosis.db in the user's data folder). Host and port come from config
// (server.host / server.port), overridden by SM_HOST / SM_PORT; SM_API_TOKEN.
import { holdYoungGeneration } from './young-generation.ts';

// Before the rest is loaded: loading it would already grow the young generation.
holdYoungGeneration();
const { logger } = await import('./logger.ts');
const { serve } = await import('./http/serve.ts');
const { chooseStore } = await import('./storage/configured-store.ts');

function portFromEnv(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`SM_PORT must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}

try {
  await serve({
    database: chooseStore(),
    host: process.env.SM_HOST || undefined,
    port: portFromEnv(process.env.SM_PORT),
    token: process.env.SM_API_TOKEN,
  });
} catch (error) {
  logger.fatal({ err: error }, (error as Error).message);
  process.exit(1);
}
