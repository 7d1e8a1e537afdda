// Expected failures become GraphQL errors with `extensions.code`; anything else stays an
// ordinary error so the host masks it (no internals leak to clients).
import { GraphQLError } from 'graphql';
import { ErrorCode, SmError } from '../server/core/errors.ts';

type Issue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined };

/** A failed zod (standard-schema) validation from @pothos/plugin-validation, named by field. */
export function validationFailure(issues: ReadonlyArray<Issue>): GraphQLError {
  const issue = issues[0];
  const path = (issue?.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
  const message = issue ? (path ? `${path}: ${issue.message}` : issue.message) : 'invalid input';
  return new GraphQLError(message, { extensions: { code: ErrorCode.BadUserInput } });
}

/** The GraphQL form of an expected error (SmError), or null when the error is unexpected. */
export function expectedError(error: unknown): GraphQLError | null {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof SmError) {
    const located = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(original.message, {
      nodes: located?.nodes,
      path: located?.path,
      extensions: { code: original.code },
    });
  }
  return null;
}
