// The typed client (client/src/generated/sdk.ts) from the committed schema (server/graphql/schema.graphql)
// and the operations in client/operations. It never imports the server. `npm run codegen`
// (scripts/codegen.ts) writes the file; test/api/api-client.test.ts checks it is up to date with the
// same function.
//
// This calls @graphql-codegen/core directly instead of the @graphql-codegen/cli: the CLI's
// loaders (URL, GitHub, Apollo Engine, git, code files) and task runner need Node >= 22, and
// this project only reads two local kinds of file. The loading below matches what the CLI did
// (the schema sorted by name, the operation files in path order), so the output is the same.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescriptGenericSdk from '@graphql-codegen/typescript-generic-sdk';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import { buildSchema, Kind, lexicographicSortSchema, parse, printSchema, Source } from 'graphql';

export const SDK_FILE = 'client/src/generated/sdk.ts';
export const SCHEMA_FILE = 'server/graphql/schema.graphql';
export const OPERATIONS_DIR = 'client/operations';

export const sdkConfig = {
  documentMode: 'documentNode',
  useTypeImports: true,
  // DateTime is an ISO-8601 string on the wire; JSON is whatever the server sent.
  scalars: { DateTime: 'string', JSON: 'unknown' },
  enumType: 'const',
};

const ROOT = import.meta.dirname;

/** The content of SDK_FILE as generated from the files under `root` now. */
export async function generateSdk(root: string = ROOT): Promise<string> {
  const schema = lexicographicSortSchema(buildSchema(readFileSync(join(root, SCHEMA_FILE), 'utf8')));
  const dir = join(root, OPERATIONS_DIR);
  const documents = readdirSync(dir)
    .filter((name) => name.endsWith('.graphql'))
    .map((name) => join(dir, name))
    .sort()
    .map((location) => {
      const rawSDL = readFileSync(location, 'utf8');
      const { definitions } = parse(new Source(rawSDL, location));
      return { location, rawSDL, document: { kind: Kind.DOCUMENT, definitions } as const };
    });
  return codegen({
    filename: SDK_FILE,
    schema: parse(printSchema(schema)),
    schemaAst: schema,
    documents,
    plugins: [{ 'typescript-operations': {} }, { 'typescript-generic-sdk': {} }],
    pluginMap: { 'typescript-operations': typescriptOperations, 'typescript-generic-sdk': typescriptGenericSdk },
    // The CLI's defaults for these two, which decide how generated imports are written.
    config: { ...sdkConfig, importExtension: '', emitLegacyCommonJSImports: true },
  });
}
