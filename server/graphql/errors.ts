// Expected failures become GraphQL errors with `extensions.code`; anything else stays an
// ordinary error so the host masks it (no internals leak to clients).
import { GraphQLError, type ExecutionResult } from 'graphql';
import { ErrorCode, expectedOf } from '../services/kernel.ts';

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
  const original = expectedOf(error instanceof GraphQLError ? (error.originalError ?? error) : error);
  if (original) {
    const located = error instanceof GraphQLError ? error : undefined;
    // Past capacity: HTTP 503 with Retry-After (yoga reads `http` and leaves it out of the body).
    const http =
      original.retryAfterSeconds === undefined
        ? {}
        : {
            retryAfter: original.retryAfterSeconds,
            http: { status: 503, headers: { 'retry-after': String(original.retryAfterSeconds) } },
          };
    return new GraphQLError(original.message, {
      nodes: located?.nodes,
      path: located?.path,
      extensions: { code: original.code, ...http },
    });
  }
  return null;
}

/**
 * Every error the API answers carries `extensions.code` from this list (docs/api.md#errors-and-limits
 * lists them too): ours set it where they are raised; errors from graphql-js (variable coercion,
 * validation), graphql-armor (query limits) and the transports get it from withCode.
 */
export const ERROR_CODES = {
  BAD_USER_INPUT: 'an argument or variable is invalid (names the field)',
  BAD_REQUEST: 'not a GraphQL request: the body or its query, variables or operationName are malformed',
  GRAPHQL_PARSE_FAILED: 'the document is not GraphQL',
  GRAPHQL_VALIDATION_FAILED: 'the document does not fit the schema',
  QUERY_TOO_COMPLEX: 'a query limit was passed (depth, aliases, cost, tokens, directives)',
  NOT_FOUND: 'no such memory, turn, session or entity in this space',
  FORBIDDEN: 'the token may not do this',
  UNAUTHENTICATED: 'missing, wrong or revoked token',
  FAILED_PRECONDITION: 'the operation needs something not configured',
  PAYLOAD_TOO_LARGE: 'the request body is over the limit',
  UNAVAILABLE:
    'past capacity (background queue full, too many requests at once): HTTP 503, retry after `extensions.retryAfter` seconds (the Retry-After header)',
  DATABASE_UNAVAILABLE:
    'the database cannot be reached now (restarting, failing over; Postgres): HTTP 503, retry after `extensions.retryAfter` seconds (the Retry-After header)',
  INTERNAL_SERVER_ERROR: 'a bug: the message is masked, the log has it',
} as const;
export type ApiErrorCode = keyof typeof ERROR_CODES;

/** The code an uncoded error deserves, by where it came from. */
function codeFor(error: GraphQLError): ApiErrorCode {
  const message = error.message;
  // graphql-armor reports its limits as syntax errors or validation errors naming the limit.
  if (/(limit of \d+ exceeded|Max (depth|aliases|directives|tokens)|Token limit|Query Cost limit)/i.test(message))
    return 'QUERY_TOO_COMPLEX';
  if (message.startsWith('Syntax Error')) return 'GRAPHQL_PARSE_FAILED';
  if (/^Variable "\$/.test(message)) return 'BAD_USER_INPUT';
  if (!error.originalError) return 'GRAPHQL_VALIDATION_FAILED';
  return 'INTERNAL_SERVER_ERROR';
}

export function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: codeFor(error) },
  });
}

/** The same result with a code on each error (results of one operation; streams are left to their transports). */
export function codedResult<T extends ExecutionResult>(result: T): T {
  if (!result.errors?.length || result.errors.every((e) => typeof e.extensions?.code === 'string')) return result;
  return { ...result, errors: result.errors.map((e) => withCode(e)) };
}
