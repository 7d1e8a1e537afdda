// createClient(): every operation of client/operations as a typed method. Queries and mutations go
// over HTTP (fetch); subscriptions over WebSocket (graphql-ws), on the same URL.
import { Kind, print, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { getSdk, type Requester, type Sdk } from './generated/sdk.ts';
import { executeTool, type ToolCallResult } from './tools.ts';

export * from './generated/sdk.ts';
export { executeTool, toolDefinitions, TOOLS, type ToolCallResult, type ToolDefinition } from './tools.ts';

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
} & Space;

/**
 * A memory space: whose memory (`userId`) and, optionally, which agent of that user. Operations
 * that take them get these unless a call passes its own (`forUser` makes a client bound to one).
 */
export type Space = { userId?: string; agentId?: string };

const declared = (doc: DocumentNode) => {
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return new Set(op?.kind === Kind.OPERATION_DEFINITION ? (op.variableDefinitions ?? []).map((v) => v.variable.name.value) : []);
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

/** A failed operation: the server's errors, with the first one's `extensions.code` as `code`. */
export class SymbiosisClientError extends Error {
  constructor(
    message: string,
    readonly errors: readonly GraphQLFormattedError[],
    readonly code: string | undefined,
    /** HTTP status, for an error over HTTP. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SymbiosisClientError';
  }
}

type Result = { data?: unknown; errors?: readonly GraphQLFormattedError[] };

function unwrap<R>(result: Result, status?: number): R {
  if (result.errors?.length) {
    const first = result.errors[0]!;
    const code = typeof first.extensions?.code === 'string' ? first.extensions.code : undefined;
    throw new SymbiosisClientError(first.message, result.errors, code, status);
  }
  if (result.data == null) throw new SymbiosisClientError('empty response', [], undefined, status);
  return result.data as R;
}

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
    if (!webSocketImpl) throw new Error('No WebSocket here: pass `webSocketImpl` (e.g. `import WebSocket from "ws"`) for subscriptions');
    ws = createWsClient({
      url: options.url.replace(/^http/, 'ws'),
      webSocketImpl,
      connectionParams: options.token ? { token: options.token } : undefined,
      retryAttempts: options.retryAttempts,
      // A refused token will not be accepted on a retry.
      shouldRetry: (event) => !(typeof event === 'object' && event !== null && 'code' in event && (event.code === 4403 || event.code === 4401)),
    });
    return ws;
  };

  async function* subscribe<R>(doc: DocumentNode, variables: unknown, operationName?: string): AsyncGenerator<R> {
    const results = socket().iterate({ query: print(doc), variables: variables as Record<string, unknown>, operationName });
    for await (const result of results) yield unwrap<R>(result as Result);
  }

  async function send<R>(doc: DocumentNode, variables: unknown, operationName?: string): Promise<R> {
    const response = await doFetch(options.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: print(doc), variables, operationName }),
    });
    let body: Result;
    try {
      body = (await response.json()) as Result;
    } catch {
      throw new SymbiosisClientError(`HTTP ${response.status}: not a GraphQL response`, [], undefined, response.status);
    }
    return unwrap<R>(body, response.status);
  }

  const requester: Requester = <R, V>(doc: DocumentNode, variables?: V) => {
    const { type, name } = operationOf(doc);
    return type === 'subscription' ? subscribe<R>(doc, variables, name) : send<R>(doc, variables, name);
  };

  const dispose = async () => {
    await ws?.dispose();
    ws = null;
  };
  const bound = (space: Space): SymbiosisClient => {
    const sdk = getSdk(withSpace(requester, space));
    return { ...sdk, forUser: (userId, agentId) => bound({ userId, agentId }), executeTool: (name, args) => executeTool(sdk, name, args), dispose };
  };
  return bound({ userId: options.userId, agentId: options.agentId });
}
