// Expected failures carry a code that the API (extensions.code), REST (status) and CLI (exit code) map.
import { DrizzleQueryError } from 'drizzle-orm';
export const ErrorCode = {
  BadUserInput: 'BAD_USER_INPUT',
  NotFound: 'NOT_FOUND',
  /** The token may not do this (another user, a write with a read-only token, an admin-only operation). */
  Forbidden: 'FORBIDDEN',
  Conflict: 'CONFLICT',
  /** The operation needs something not configured (e.g. an embedding model). */
  FailedPrecondition: 'FAILED_PRECONDITION',
  /** Past capacity (a full job queue, too many requests at once): retry after `retryAfterSeconds`. */
  Unavailable: 'UNAVAILABLE',
  /** The database cannot be reached now (restarting, failing over): retry after `retryAfterSeconds`. */
  DatabaseUnavailable: 'DATABASE_UNAVAILABLE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class SmError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For UNAVAILABLE and DATABASE_UNAVAILABLE: when a retry may succeed (HTTP Retry-After). */
    readonly retryAfterSeconds?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SmError';
  }
}

export const badInput = (message: string) => new SmError(ErrorCode.BadUserInput, message);
export const notFound = (what: string, id: string | number) =>
  new SmError(ErrorCode.NotFound, `${what} ${JSON.stringify(id)} not found`);
export const forbidden = (message: string) => new SmError(ErrorCode.Forbidden, message);
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new SmError(ErrorCode.Unavailable, message, retryAfterSeconds);

/**
 * The expected error `error` is, or that a builder query failed with: drizzle wraps what the
 * port throws (DATABASE_UNAVAILABLE among them) in a DrizzleQueryError. Else undefined.
 */
export function expectedOf(error: unknown): SmError | undefined {
  if (error instanceof SmError) return error;
  if (error instanceof DrizzleQueryError && error.cause instanceof SmError) return error.cause;
  return undefined;
}
