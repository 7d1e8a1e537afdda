// The memory service as the middleware and the tools see it: the typed client, whose user and
// agent, a time limit on every call, and where warnings go. Memory is an aid to the model call,
// never a reason for it to fail, so callers turn a failure here into a warning.
import { createClient, type SymbiosisClient } from '@symbiosis-memory/client';

/** Where warnings go: `console` by default; a pino or winston logger fits as it is. */
export type Logger = { warn(message: string): void };

export type MemoryOptions = {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:8787/graphql`. Give this or `client`. */
  url?: string;
  /** API token (the server's SM_API_TOKEN), with `url`. */
  token?: string;
  /** A typed client of your own (`createClient` of @symbiosis-memory/client), instead of `url`. */
  client?: SymbiosisClient;
  /** Whose memory. Omitted: the server's default user. */
  userId?: string;
  /** Which agent of that user (its own memories plus the user's shared ones). */
  agentId?: string;
  /** Longest wait for one memory call, in milliseconds (default 2000); past it the call goes on without memory. */
  timeoutMs?: number;
  /** Where warnings go (default `console`). */
  logger?: Logger;
};

export const DEFAULT_TIMEOUT_MS = 2_000;

export class MemoryTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'MemoryTimeoutError';
  }
}

export type Connection = {
  client: SymbiosisClient;
  logger: Logger;
  /** Runs one memory call within the time limit; rejects with its error or a MemoryTimeoutError. */
  call<T>(what: string, run: (client: SymbiosisClient) => Promise<T>): Promise<T>;
  warn(message: string, error: unknown): void;
};

export function connect(options: MemoryOptions): Connection {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  const logger = options.logger ?? console;
  const client = options.client ?? ownClient(options, timeoutMs);
  return {
    client,
    logger,
    async call(what, run) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new MemoryTimeoutError(what, timeoutMs)), timeoutMs);
      });
      try {
        return await Promise.race([run(client), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    warn(message, error) {
      const code = (error as { code?: unknown } | null)?.code;
      const reason =
        error instanceof Error ? `${typeof code === 'string' ? `${code}: ` : ''}${error.message}` : String(error);
      logger.warn(`symbiosis-memory: ${message}: ${reason}`);
    },
  };
}

function ownClient(options: MemoryOptions, timeoutMs: number): SymbiosisClient {
  if (!options.url) throw new TypeError('symbiosis-memory: give `url` (the GraphQL endpoint) or `client`');
  return createClient({
    url: options.url,
    token: options.token,
    // One try: a service that is down should cost the model call one refused connection, not
    // the client's retries with their pauses.
    retries: 0,
    // The request itself ends at the time limit too, instead of running on unheard.
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
}
