// The client's one error type, and how a GraphQL answer or a failed fetch becomes one.
import type { GraphQLFormattedError } from 'graphql';

/**
 * What `code` can be: the server's `extensions.code` of the first error (`BAD_USER_INPUT`,
 * `NOT_FOUND`, `FORBIDDEN`...), or one of the client's own: `NETWORK` (the server could not be
 * reached) and `AUTH` (HTTP 401: missing, wrong or revoked token).
 */
export type SymbiosisErrorCode =
  | 'NETWORK'
  | 'AUTH'
  | 'BAD_USER_INPUT'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL_SERVER_ERROR'
  | (string & {});

/** A failed operation: the server's errors, with the first one's `extensions.code` as `code`. */
export class SymbiosisError extends Error {
  /** The first error's `extensions.code` as the server sent it (`code` is `AUTH` for its `UNAUTHENTICATED`). */
  readonly serverCode: string | undefined;
  constructor(
    message: string,
    readonly errors: readonly GraphQLFormattedError[],
    readonly code: SymbiosisErrorCode | undefined,
    /** HTTP status, for an error over HTTP. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SymbiosisError';
    const serverCode = errors[0]?.extensions?.code;
    this.serverCode = typeof serverCode === 'string' ? serverCode : undefined;
  }
}

/** @deprecated The old name of `SymbiosisError`. */
export const SymbiosisClientError = SymbiosisError;
/** @deprecated The old name of `SymbiosisError`. */
export type SymbiosisClientError = SymbiosisError;

/** A GraphQL response body, over HTTP or WebSocket. */
export type Result = { data?: unknown; errors?: readonly GraphQLFormattedError[] };

/** The data of `result`, or its first error as a SymbiosisError. */
export function unwrap<R>(result: Result, status?: number): R {
  if (result.errors?.length) {
    const first = result.errors[0]!;
    const code =
      status === 401 ? 'AUTH' : typeof first.extensions?.code === 'string' ? first.extensions.code : undefined;
    throw new SymbiosisError(first.message, result.errors, code, status);
  }
  if (result.data == null) throw new SymbiosisError('empty response', [], undefined, status);
  return result.data as R;
}

// fetch rejects with TypeError('fetch failed') and the socket's error as its cause.
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
};

/** A `NETWORK` error naming the url and, in words, why fetch could not reach it. */
export function networkError(url: string, error: unknown): SymbiosisError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const errno = typeof cause?.code === 'string' ? cause.code : undefined;
  const reason =
    (errno && REASONS[errno]) ??
    (typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error));
  return new SymbiosisError(`cannot reach ${url}: ${reason}${errno ? ` (${errno})` : ''}`, [], 'NETWORK', undefined, {
    cause: error,
  });
}
