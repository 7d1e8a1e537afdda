// Where the database lives unless --db / SM_DB say otherwise (kept apart: the CLI reads it at start-up).
export const DEFAULT_DB_PATH = './data/symbiosis.db';
