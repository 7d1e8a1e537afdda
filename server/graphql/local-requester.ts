// Runs operations of the typed client in process, on the schema, with a given access: the CLI
// on its own database file and the MCP tools inside the service use it. Errors look exactly
// like the server's (code + message), thrown as the client's SymbiosisClientError.
import { execute, GraphQLError, type DocumentNode } from 'graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { SymbiosisClientError } from '../../client/src/index.ts';
import type { Requester } from '../../client/src/generated/sdk.ts';
import type { Access } from '../core/users/tokens.ts';
import type { Runtime } from '../services/runtime.ts';
import type { ChangeFeed } from './builder.ts';
import { expectedError, withCode } from './errors.ts';
import { schema } from './index.ts';

export function localRequester(runtime: Runtime, access: Access, changes: ChangeFeed = createPubSub()): Requester {
  return async <R, V>(document: DocumentNode, variables?: V): Promise<R> => {
    const result = await execute({
      schema,
      document,
      variableValues: variables as Record<string, unknown> | undefined,
      contextValue: { store: runtime.store, runtime, changes, access },
    });
    if (result.errors?.length) {
      const first = result.errors[0]!;
      const original = first.originalError;
      // Ours (SmError), an input check's (a GraphQLError with its code), or graphql-js's (coded here).
      const expected =
        expectedError(first) ??
        (original instanceof GraphQLError && typeof original.extensions?.code === 'string'
          ? original
          : original
            ? null
            : withCode(first));
      // Unexpected errors keep their message: the caller owns this process and its logs.
      const error = expected ?? new GraphQLError(original?.message ?? first.message);
      const code = typeof error.extensions?.code === 'string' ? error.extensions.code : undefined;
      throw new SymbiosisClientError(error.message, [error.toJSON()], code);
    }
    return result.data as R;
  };
}
