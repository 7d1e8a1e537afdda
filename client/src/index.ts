// createClient(): every operation of client/operations as a typed method. Queries and mutations go
// over HTTP (fetch); subscriptions over WebSocket (graphql-ws), on the same URL.
import { Kind, print, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { getSdk, type Requester, type Sdk } from './generated/sdk.ts';
import { executeTool, type ToolCallResult } from './tools.ts';

export * from './generated/sdk.ts';
export { executeTool, toolDefinitions, TOOLS, toolSchemas, type ToolCallResult, type ToolDefinition } from './tools.ts';

export type ClientOptions = {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:8787/graphql` (`ws://` is derived for subscriptions). */
  url: string;
  /** API token (the server's SM_API_TOKEN), sent as `Authorization: Bearer` and in connection_init. */
  token?: string;
  /** WebSocket constructor for subscriptions; defaults to the global one (Node >= 22, browsers). On Node 20 pass `ws`. */
  webSocketImpl?: unknown;
  /** fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
  /** Extra HTTP headers for every request. */
  headers?: Record<string, string>;
  /** How many times a dropped WebSocket reconnects before subscriptions fail (graphql-ws default: 5). */
  retryAttempts?: number;
  /**
   * How many times a query is retried after a NETWORK error or an HTTP 502/503/504 (default 2; 0
   * never retries). Mutations are never retried: one that reached the server may have been applied.
   */
  retries?: number;
} & Space;

/**
 * A memory space: whose memory (`userId`) and, optionally, which agent of that user. Operations
 * that take them get these unless a call passes its own (`forUser` makes a client bound to one).
 */
export type Space = { userId?: string; agentId?: string };

const declared = (doc: DocumentNode) => {
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return new Set(
    op?.kind === Kind.OPERATION_DEFINITION ? (op.variableDefinitions ?? []).map((v) => v.variable.name.value) : [],
  );
};

/** A requester that fills `$userId` / `$agentId` of the operations declaring them, unless the call gave them. */
export function withSpace(requester: Requester, space: Space): Requester {
  if (space.userId === undefined && space.agentId === undefined) return requester;
  return <R, V>(doc: DocumentNode, variables?: V) => {
    const names = declared(doc);
    const given = (variables ?? {}) as Record<string, unknown>;
    const filled: Record<string, unknown> = { ...given };
    if (space.userId !== undefined && names.has('userId') && given.userId == null) filled.userId = space.userId;
    if (space.agentId !== undefined && names.has('agentId') && given.agentId == null) filled.agentId = space.agentId;
    return requester<R, Record<string, unknown>>(doc, filled);
  };
}

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

type Result = { data?: unknown; errors?: readonly GraphQLFormattedError[] };

function unwrap<R>(result: Result, status?: number): R {
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
function networkError(url: string, error: unknown): SymbiosisError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const errno = typeof cause?.code === 'string' ? cause.code : undefined;
  const reason =
    (errno && REASONS[errno]) ??
    (typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error));
  return new SymbiosisError(`cannot reach ${url}: ${reason}${errno ? ` (${errno})` : ''}`, [], 'NETWORK', undefined, {
    cause: error,
  });
}

/** Statuses of a proxy or a server that may answer on a second try. */
const RETRY_STATUS = new Set([502, 503, 504]);
const MAX_DELAY_MS = 5_000;
/** Exponential from 100 ms; the jitter (50 to 100 % of it) spreads out clients that failed together. */
const backoff = (attempt: number) => Math.min(MAX_DELAY_MS, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
/** `Retry-After` in seconds or as an HTTP date, capped; null when absent or unreadable. */
function retryAfter(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? null : Math.min(MAX_DELAY_MS, Math.max(0, ms));
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const operationOf = (doc: DocumentNode) => {
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return { type: op?.operation, name: op?.name?.value };
};

export type SymbiosisClient = Sdk & {
  /** The same connection, bound to one user's memory (and one agent's, when given). */
  forUser(userId: string, agentId?: string): SymbiosisClient;
  /** Runs a model's tool call (see `toolDefinitions` for the tools): `await client.executeTool(call.name, JSON.parse(call.arguments))`. */
  executeTool(name: string, args: unknown): Promise<ToolCallResult>;
  /** Closes the WebSocket (if one was opened). */
  dispose(): Promise<void>;
};

export function createClient(options: ClientOptions): SymbiosisClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  let ws: WsClient | null = null;
  const socket = () => {
    if (ws) return ws;
    const webSocketImpl = options.webSocketImpl ?? (globalThis as { WebSocket?: unknown }).WebSocket;
    if (!webSocketImpl)
      throw new Error('No WebSocket here: pass `webSocketImpl` (e.g. `import WebSocket from "ws"`) for subscriptions');
    ws = createWsClient({
      url: options.url.replace(/^http/, 'ws'),
      webSocketImpl,
      connectionParams: options.token ? { token: options.token } : undefined,
      retryAttempts: options.retryAttempts,
      // A refused token will not be accepted on a retry.
      shouldRetry: (event) =>
        !(
          typeof event === 'object' &&
          event !== null &&
          'code' in event &&
          (event.code === 4403 || event.code === 4401)
        ),
    });
    return ws;
  };

  async function* subscribe<R>(doc: DocumentNode, variables: unknown, operationName?: string): AsyncGenerator<R> {
    const results = socket().iterate({
      query: print(doc),
      variables: variables as Record<string, unknown>,
      operationName,
    });
    for await (const result of results) yield unwrap<R>(result as Result);
  }

  async function post(body: string): Promise<Response> {
    try {
      return await doFetch(options.url, { method: 'POST', headers, body });
    } catch (error) {
      throw networkError(options.url, error);
    }
  }

  async function send<R>(
    doc: DocumentNode,
    variables: unknown,
    operationName: string | undefined,
    retries: number,
  ): Promise<R> {
    const body = JSON.stringify({ query: print(doc), variables, operationName });
    let response: Response;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      try {
        response = await post(body);
      } catch (error) {
        if (last) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || !RETRY_STATUS.has(response.status)) break;
      await response.body?.cancel(); // frees the connection for the next attempt
      await sleep(retryAfter(response) ?? backoff(attempt));
    }
    let result: Result;
    try {
      result = (await response.json()) as Result;
    } catch {
      throw new SymbiosisError(
        `HTTP ${response.status}: not a GraphQL response`,
        [],
        response.status === 401 ? 'AUTH' : undefined,
        response.status,
      );
    }
    return unwrap<R>(result, response.status);
  }

  const requester: Requester = <R, V>(doc: DocumentNode, variables?: V) => {
    const { type, name } = operationOf(doc);
    if (type === 'subscription') return subscribe<R>(doc, variables, name);
    // Only reads are retried: a mutation whose response was lost may have been applied.
    return send<R>(doc, variables, name, type === 'query' ? (options.retries ?? 2) : 0);
  };

  const dispose = async () => {
    await ws?.dispose();
    ws = null;
  };
  const bound = (space: Space): SymbiosisClient => {
    const sdk = getSdk(withSpace(requester, space));
    return {
      ...sdk,
      forUser: (userId, agentId) => bound({ userId, agentId }),
      executeTool: (name, args) => executeTool(sdk, name, args),
      dispose,
    };
  };
  return bound({ userId: options.userId, agentId: options.agentId });
}
