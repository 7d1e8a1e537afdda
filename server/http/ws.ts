// graphql-ws on the HTTP server's port and path, running operations through yoga's envelop
// (same schema, context, limits and error masking as HTTP).
import { onChange } from '../services/changes.ts';
import { liveTokenIds, type Access } from '../services/tokens.ts';
import type { Server } from 'node:http';
import { GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import { type Extra, useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { Store } from '../core/kernel/store.ts';
import { browserRefusal, connectionToken, resolveAccess } from './auth.ts';
import { codedResult, withCode } from './error-codes.ts';
import { GRAPHQL_PATH, MAX_BODY_BYTES, type GraphQLServer } from './yoga.ts';

/** Largest WebSocket message accepted: as an HTTP request body. */
export const MAX_WS_MESSAGE_BYTES = MAX_BODY_BYTES;

/** How often open connections' tokens are checked against the database (a token revoked by another process). */
const REVOCATION_CHECK_MS = 500;
/** graphql-ws close code for a refused connection (as onConnect returning false). */
const FORBIDDEN_CLOSE = 4403;

type EnvelopedArgs = ExecutionArgs & {
  rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
};

/**
 * The connections on a scoped token, closed the moment it is revoked: by this process (its change
 * event) or by another one on the same file (the CLI), whose event never reaches us (a sweep).
 */
function revocationWatch(store: Store, log: Logger) {
  const scoped = new Map<WebSocket, number>();
  const closeRevoked = (revoked: (tokenId: number) => boolean) => {
    for (const [socket, tokenId] of scoped) {
      if (!revoked(tokenId)) continue;
      scoped.delete(socket);
      socket.close(FORBIDDEN_CLOSE, 'token revoked');
    }
  };
  const unsubscribe = onChange(store, (event) => {
    if (event.type === 'token' && event.action === 'revoked') closeRevoked((id) => id === event.tokenId);
  });
  const sweep = setInterval(async () => {
    if (scoped.size === 0 || !store.sql.open) return;
    try {
      const live = await liveTokenIds(store, [...new Set(scoped.values())]);
      closeRevoked((id) => !live.has(id));
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'could not check WebSocket tokens');
    }
  }, REVOCATION_CHECK_MS);
  sweep.unref();
  return {
    scoped,
    stop() {
      clearInterval(sweep);
      unsubscribe();
    },
  };
}

/** An operation of a socket, parsed and validated through yoga's envelop: its arguments, or its errors. */
async function envelopedOperation(
  yoga: GraphQLServer,
  ctx: Context<Record<string, unknown> | undefined, Extra>,
  payload: SubscribePayload,
) {
  const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
    ...ctx,
    req: ctx.extra.request,
    socket: ctx.extra.socket,
    params: payload,
    access: (ctx.extra as { access?: Access }).access,
  });
  let document;
  try {
    document = parse(payload.query);
  } catch (error) {
    // A syntax error, armor's token limit or a document nested too deep: the client's, for
    // this operation only (the socket stays open for the others).
    if (error instanceof GraphQLError) return [withCode(error)];
    throw error;
  }
  const args: EnvelopedArgs = {
    schema,
    operationName: payload.operationName,
    document,
    variableValues: payload.variables,
    contextValue: await contextFactory(),
    rootValue: { execute, subscribe },
  };
  const errors = validate(args.schema, args.document);
  return errors.length > 0 ? errors.map(withCode) : args;
}

export function attachWebSocket(options: {
  server: Server;
  store: Store;
  yoga: GraphQLServer;
  token?: string;
  log: Logger;
}) {
  const { server, store, yoga, token, log } = options;
  const revocations = revocationWatch(store, log);
  const wss = new WebSocketServer({
    server,
    path: GRAPHQL_PATH,
    // Larger messages close the socket (1009) before they are parsed, token or not.
    maxPayload: MAX_WS_MESSAGE_BYTES,
    verifyClient: ({ req }, done) => {
      const refusal = browserRefusal({ origin: req.headers.origin, host: req.headers.host }, !token);
      if (refusal) log.warn({ reason: refusal }, 'WebSocket upgrade refused');
      done(refusal === null, 403, refusal ?? undefined);
    },
  });
  const disposable = useServer(
    {
      execute: (args) => (args as EnvelopedArgs).rootValue.execute(args) as never,
      subscribe: (args) => (args as EnvelopedArgs).rootValue.subscribe(args) as never,
      // Returning false closes the socket with 4403 Forbidden.
      onConnect: async (ctx) => {
        const access = await resolveAccess(store, token, connectionToken(ctx.connectionParams));
        if (!access) return false;
        (ctx.extra as { access?: Access }).access = access;
        if (!access.admin) revocations.scoped.set(ctx.extra.socket, access.tokenId);
        return true;
      },
      onClose: (ctx) => {
        revocations.scoped.delete(ctx.extra.socket);
      },
      onSubscribe: (ctx, _id, payload) => envelopedOperation(yoga, ctx, payload),
      onNext: (_ctx, _id, _payload, _args, result) => codedResult(result as ExecutionResult),
    },
    wss,
  );
  return {
    /** Closes every socket (1001 Going Away) and the WebSocket server. */
    async close() {
      revocations.stop();
      await disposable.dispose();
      // ws leaves sockets of an external HTTP server open; they would hold server.close() forever.
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
