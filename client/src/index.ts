// createClient(): every operation of client/operations as a typed method. Queries and mutations go
// over HTTP (fetch, http.ts); subscriptions over WebSocket (graphql-ws, socket.ts), on the same URL.
import { type DocumentNode, Kind } from 'graphql';
import { getSdk, type Requester, type Sdk } from './generated/sdk.ts';
import { httpSender } from './http.ts';
import { socketSubscriber } from './socket.ts';
import { type Space, withSpace } from './space.ts';
import { executeTool, type ToolCallResult } from './tools.ts';

export * from './generated/sdk.ts';
export { SymbiosisClientError, SymbiosisError, type SymbiosisErrorCode } from './errors.ts';
export { type Space, withSpace } from './space.ts';
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

export type SymbiosisClient = Sdk & {
  /** The same connection, bound to one user's memory (and one agent's, when given). */
  forUser(userId: string, agentId?: string): SymbiosisClient;
  /** Runs a model's tool call (see `toolDefinitions` for the tools): `await client.executeTool(call.name, JSON.parse(call.arguments))`. */
  executeTool(name: string, args: unknown): Promise<ToolCallResult>;
  /** Closes the WebSocket (if one was opened). */
  dispose(): Promise<void>;
};

const operationOf = (doc: DocumentNode) => {
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return { type: op?.operation, name: op?.name?.value };
};

/** The headers of every request: JSON, the token as a bearer, then the caller's own. */
const headersOf = (options: ClientOptions): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/graphql-response+json, application/json',
  ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  ...options.headers,
});

export function createClient(options: ClientOptions): SymbiosisClient {
  const send = httpSender({
    url: options.url,
    fetch: options.fetch ?? globalThis.fetch,
    headers: headersOf(options),
  });
  const { subscribe, dispose } = socketSubscriber(options);
  const requester: Requester = <R, V>(doc: DocumentNode, variables?: V) => {
    const { type, name } = operationOf(doc);
    if (type === 'subscription') return subscribe<R>(doc, variables, name);
    // Only reads are retried: a mutation whose response was lost may have been applied.
    const retries = type === 'query' ? (options.retries ?? 2) : 0;
    return send<R>({ doc, variables, operationName: name, retries });
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
