// `npm run codegen`: the typed client (client/src/generated/sdk.ts) from the committed schema
// (schema/schema.graphql) and the operations in client/operations. It never imports the server.
import type { CodegenConfig } from '@graphql-codegen/cli';

export const SDK_FILE = 'client/src/generated/sdk.ts';

export const sdkOutput: CodegenConfig['generates'][string] = {
  plugins: ['typescript-operations', 'typescript-generic-sdk'],
  config: {
    documentMode: 'documentNode',
    useTypeImports: true,
    // DateTime is an ISO-8601 string on the wire; JSON is whatever the server sent.
    scalars: { DateTime: 'string', JSON: 'unknown' },
    enumType: 'const',
  },
};

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: 'client/operations/*.graphql',
  generates: { [SDK_FILE]: sdkOutput },
  silent: true,
};

export default config;
