// `npm run schema:print`: writes server/graphql/schema.graphql, the committed API contract the client is
// generated from. Types are sorted so the file changes only when the API does.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';

export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

export const printSchemaFile = (schema: GraphQLSchema) => `${printSchema(lexicographicSortSchema(schema))}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { schema } = await import('./index.ts');
  writeFileSync(SCHEMA_FILE, printSchemaFile(schema));
  console.log(`wrote ${SCHEMA_FILE}`);
}
