// Subscriptions over WebSocket (graphql-ws) on the same URL as HTTP, the socket opened by the
// first subscription.
import { type DocumentNode, print } from 'graphql';
import { type Client as WsClient, createClient as createWsClient } from 'graphql-ws';
import { type Result, unwrap } from './errors.ts';

export type SocketOptions = {
  /** The GraphQL endpoint over HTTP; `ws://` (or `wss://`) is derived from it. */
  url: string;
  token?: string;
  webSocketImpl?: unknown;
  retryAttempts?: number;
};

/** A refused token will not be accepted on a retry. */
const refused = (event: unknown) =>
  typeof event === 'object' && event !== null && 'code' in event && (event.code === 4403 || event.code === 4401);

export function socketSubscriber(options: SocketOptions) {
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
      shouldRetry: (event) => !refused(event),
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

  /** Closes the WebSocket (if one was opened); a later subscription opens a new one. */
  const dispose = async () => {
    await ws?.dispose();
    ws = null;
  };
  return { subscribe, dispose };
}
