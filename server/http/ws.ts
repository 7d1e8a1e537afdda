// graphql-ws on the HTTP server's port and path, running operations through yoga's envelop
// (same schema, context, limits and error masking as HTTP).
import type { Server } from 'node:http';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { browserRefusal, connectionToken, tokenMatches } from './auth.ts';
import { GRAPHQL_PATH, type GraphQLServer } from './yoga.ts';

type EnvelopedArgs = ExecutionArgs & { rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown } };

export function attachWebSocket(options: { server: Server; yoga: GraphQLServer; token?: string; log: Logger }) {
  const { server, yoga, token, log } = options;
  const wss = new WebSocketServer({
    server,
    path: GRAPHQL_PATH,
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
      onConnect: (ctx) => !token || tokenMatches(connectionToken(ctx.connectionParams), token),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params: payload,
        });
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          // A syntax error (or armor's token limit) is the client's, reported like any other.
          if (error instanceof GraphQLError) return [error];
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
        return errors.length > 0 ? errors : args;
      },
    },
    wss,
  );
  return {
    /** Closes every socket (1001 Going Away) and the WebSocket server. */
    async close() {
      await disposable.dispose();
      // ws leaves sockets of an external HTTP server open; they would hold server.close() forever.
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
