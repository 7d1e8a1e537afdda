// Where the generated migrations are. This file sits two levels below the project root, as the CLI
// bundle's chunks (dist/cli/) do, so one relative URL finds them from the sources and the bundle.
import { fileURLToPath } from 'node:url';

export const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../drizzle/migrations', import.meta.url));
export const POSTGRES_MIGRATIONS = fileURLToPath(new URL('../../drizzle/pg-migrations', import.meta.url));
