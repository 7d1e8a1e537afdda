// Expected failures carry a code that the API (extensions.code), REST (status) and CLI (exit code) map.
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
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class SmError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For UNAVAILABLE: when a retry may succeed (HTTP Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SmError';
  }
}

export const badInput = (message: string) => new SmError(ErrorCode.BadUserInput, message);
export const notFound = (what: string, id: string | number) =>
  new SmError(ErrorCode.NotFound, `${what} ${JSON.stringify(id)} not found`);
export const forbidden = (message: string) => new SmError(ErrorCode.Forbidden, message);
export const unavailable = (message: string, retryAfterSeconds: number) => new SmError(ErrorCode.Unavailable, message, retryAfterSeconds);
