import { defineConfig } from 'drizzle-kit';

// The Postgres migrations, generated from drizzle/pg-schema.ts next to the SQLite ones.
// SM_MIGRATIONS_OUT lets the freshness test generate into a scratch folder and compare.
export default defineConfig({
  dialect: 'postgresql',
  schema: './drizzle/pg-schema.ts',
  out: process.env.SM_MIGRATIONS_OUT ?? './drizzle/pg-migrations',
});
