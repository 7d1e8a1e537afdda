// The GraphQL engine: yoga with our schema, query limits (graphql-armor), error masking,
// the access guard, the REST routes and export/import as yoga plugins.
import { liveTokenIds, type Access } from '../services/tokens.ts';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { createYoga, maskError as yogaMaskError, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Logger } from 'pino';
import { expectedError } from '../graphql/errors.ts';
import { schema, type ChangeFeed, type Context } from '../graphql/index.ts';
import type { Runtime } from '../services/runtime.ts';
import { getOperationAST, GraphQLError } from 'graphql';
import type { Store } from '../core/kernel/store.ts';
import { readinessCheck } from './readiness.ts';
import { accessOf, bearer, browserRefusal, rememberAccess, resolveAccess } from './auth.ts';
import { bodyLimit } from './body-limit.ts';
import { dataRoutes } from './data-routes.ts';
import { errorCodes } from './error-codes.ts';
import { graphiqlRoute } from './graphiql.ts';
import { inspectorRoute, SECURITY_HEADERS } from './inspector.ts';
import { mcpRoute } from './mcp-route.ts';
import { restError, restRoutes, toResponse } from './rest.ts';

export const GRAPHQL_PATH = '/graphql';
export const HEALTH_PATH = '/health';
/**
 * Largest request body accepted, GraphQL and REST alike: a turn's text is at most 1,000,000
 * characters, which JSON-encoded in UTF-8 is up to 3 bytes each (and 2 for an escaped newline or quote).
 */
export const MAX_BODY_BYTES = 4_000_000;

/**
 * Query limits. Depth leaves room for memories -> edges -> node -> sources -> turn -> entities -> field.
 * Cost multiplies by literal `first`/`last`: a page of 100 memories with every field costs about 12 000.
 */
export const ARMOR = {
  maxDepth: { n: 12 },
  maxAliases: { n: 15 },
  costLimit: { maxCost: 20_000 },
  maxTokens: { n: 2000 },
  maxDirectives: { n: 20 },
  blockFieldSuggestion: { enabled: true },
} as const;

function yogaLogger(log: Logger): YogaLogger {
  const emit =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      // Yoga logs every error it rewrites; an expected one (bad input, not found) is the client's, not ours.
      if (first instanceof Error && expectedError(first)) log.debug({ err: first }, first.message);
      else if (first instanceof Error) log[level]({ err: first }, first.message);
      else log[level](rest.length > 0 ? { details: rest } : {}, String(first));
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

const graphqlError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ errors: [{ message, extensions: { code } }] }), {
    status,
    headers: { 'content-type': 'application/graphql-response+json; charset=utf-8', ...headers },
  });

/**
 * Refuses other origins and requests whose token is missing (when SM_API_TOKEN is set), wrong or
 * revoked; resolves what the others may reach (admin, or one user's space).
 */
function accessGuard(store: Store, token: string | undefined): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      const reply = url.pathname === GRAPHQL_PATH ? graphqlError : restError;
      const refusal = browserRefusal(
        { origin: request.headers.get('origin'), host: request.headers.get('host') },
        !token,
      );
      if (refusal) return endResponse(reply(403, 'FORBIDDEN', refusal));
      const access = await resolveAccess(store, token, bearer(request.headers.get('authorization')));
      if (!access) {
        return endResponse(
          reply(401, 'UNAUTHENTICATED', 'missing, wrong or revoked token: send Authorization: Bearer <token>', {
            'www-authenticate': 'Bearer',
          }),
        );
      }
      rememberAccess(request, access);
    },
  };
}

/** How often a subscription on a scoped token checks that the token still stands. */
const REVOCATION_CHECK_MS = 500;

/**
 * Ends a stream once `alive` says no: checked every REVOCATION_CHECK_MS while it waits for its
 * next event, so a subscription on a revoked token stops within that time, events or not.
 */
async function* endWhenRevoked<T>(source: AsyncIterable<T>, alive: () => Promise<boolean>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = iterator.next();
      let step: IteratorResult<T> | 'revoked';
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const tick = new Promise<'tick'>((resolve) => (timer = setTimeout(() => resolve('tick'), REVOCATION_CHECK_MS)));
        const raced = await Promise.race([next, tick]);
        clearTimeout(timer);
        if (raced !== 'tick') {
          step = raced;
          break;
        }
        if (!(await alive())) {
          step = 'revoked';
          break;
        }
      }
      if (step === 'revoked' || step.done) return;
      yield step.value;
    }
  } finally {
    // Not awaited: a generator waiting for its next event only returns once that event comes.
    Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/** Subscriptions on a scoped token end when it is revoked (over SSE and WebSocket alike; ws.ts also closes the socket). */
function revocationGuard(store: Store): Plugin<Context> {
  return {
    onSubscribe() {
      return {
        onSubscribeResult({ args, result, setResult }) {
          const access = args.contextValue.access;
          if (access.admin || !(Symbol.asyncIterator in result)) return;
          setResult(
            endWhenRevoked(
              result,
              async () => !store.sql.open || (await liveTokenIds(store, [access.tokenId])).has(access.tokenId),
            ),
          );
        },
      };
    },
  };
}

/** A read-only token never runs a mutation, whatever its fields check (defence in depth). */
const readOnlyGuard: Plugin<Context> = {
  onExecute({ args, setResultAndStopExecution }) {
    const access = (args.contextValue as Context).access;
    if (access.admin || !access.readOnly) return;
    if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
    setResultAndStopExecution({
      errors: [new GraphQLError('this token is read-only', { extensions: { code: 'FORBIDDEN' } })],
    });
  },
};

export function createGraphQLServer(options: { runtime: Runtime; changes: ChangeFeed; token?: string; log: Logger }) {
  const { runtime, changes, token, log } = options;
  const { store } = runtime;
  return createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: HEALTH_PATH,
    // Over WebSocket the access comes resolved from connection_init (see ws.ts); over HTTP from the guard.
    context: (initial: { request: Request; access?: Access }) => ({
      store,
      runtime,
      changes,
      access: initial.access ?? accessOf(initial.request),
    }),
    // graphiqlRoute serves GraphiQL from the package (yoga's own page loads it from a CDN).
    graphiql: false,
    landingPage: false,
    // Same-origin only: the API is for local programs, not for web pages on other sites.
    cors: false,
    // bodyLimit (below) instead: the same limit, without streaming every body through a counter.
    maxRequestBodySize: false,
    logging: yogaLogger(log),
    maskedErrors: {
      maskError(error, message, isDev) {
        // Yoga logs the original of every error rewritten here.
        return expectedError(error) ?? yogaMaskError(error, message, isDev);
      },
    },
    plugins: [
      bodyLimit(MAX_BODY_BYTES),
      readinessCheck(store),
      // Pages need no token: the inspector at / and GraphiQL at /graphql get their data through
      // /graphql with the token a person types.
      inspectorRoute(),
      graphiqlRoute(GRAPHQL_PATH, SECURITY_HEADERS),
      accessGuard(store, token),
      readOnlyGuard,
      revocationGuard(store),
      mcpRoute({ runtime, changes, bodyLimit: MAX_BODY_BYTES, onError: (error) => toResponse(error, log) }),
      restRoutes({ runtime, log, bodyLimit: MAX_BODY_BYTES }),
      dataRoutes({ runtime, log }),
      EnvelopArmorPlugin(ARMOR),
      // Last: its parse and validation wrappers go around armor's.
      errorCodes({
        graphqlPath: GRAPHQL_PATH,
        maxAliases: ARMOR.maxAliases.n,
        reply: (status, code, message) => graphqlError(status, code, message),
      }),
    ],
  });
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;
