import { defineConfig } from 'drizzle-kit';

// SM_MIGRATIONS_OUT lets the freshness test generate into a scratch folder and compare.
export default defineConfig({
  dialect: 'sqlite',
  schema: './drizzle/schema.ts',
  out: process.env.SM_MIGRATIONS_OUT ?? './drizzle/migrations',
});
