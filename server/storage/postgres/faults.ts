// A database that stops answering while the service runs (a restart, a failover, the network):
// what failed because of it becomes one expected error, DATABASE_UNAVAILABLE (HTTP 503 with
// Retry-After), instead of an internal error, so a client knows to try again. Nothing else is
// needed to recover: the pool opens new connections for the next queries once the server is back.
import { ErrorCode, SmError } from '../../core/kernel/errors.ts';

/** Long enough for a restart or a failover, short enough for a client to carry on. */
export const DATABASE_RETRY_SECONDS = 5;

/** Socket failures Node reports on a connection. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server going away: connection exceptions (class 08), shut down by an operator, a crash, starting up or shutting down. */
const SERVER_GONE = /^(08...|57P0[123])$/;
/** What node-postgres throws for a connection that ended under it, or that could not be made in time. */
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

function lostConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_GONE.test(code))) return true;
  // A refused connection on several addresses (IPv4 and IPv6) comes as one AggregateError.
  if (error instanceof AggregateError) return error.errors.some(lostConnection);
  return DRIVER_MESSAGES.test(error.message);
}

/** The error as DATABASE_UNAVAILABLE when it says the database could not be reached; else itself. */
export function asDatabaseFault(error: unknown): unknown {
  if (error instanceof SmError || !lostConnection(error)) return error;
  return new SmError(
    ErrorCode.DatabaseUnavailable,
    `the database is unavailable: retry in ${DATABASE_RETRY_SECONDS} s`,
    DATABASE_RETRY_SECONDS,
    { cause: error },
  );
}
