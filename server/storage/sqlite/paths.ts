// Where the database lives unless --db / SM_DB say otherwise: one file in the user's data folder
// ($XDG_DATA_HOME/symbiosis-memory on Linux, ~/Library/Application Support on macOS, %LOCALAPPDATA%
// on Windows), the same for the CLI and the server whatever folder they start in. Kept apart: the
// CLI reads it at start-up.
import { join } from 'node:path';
import envPaths from 'env-paths';

/** The default database file, read from the environment at each call (XDG_DATA_HOME may change in tests). */
export const defaultDbPath = () => join(envPaths('symbiosis-memory', { suffix: '' }).data, 'symbiosis.db');

/** The database a process uses: an explicit path, else SM_DB, else the default. */
export const resolveDbPath = (explicit?: string, env: NodeJS.ProcessEnv = process.env) =>
  explicit || env.SM_DB || defaultDbPath();
