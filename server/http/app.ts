// The host: one node:http server with GraphQL over HTTP (yoga, GraphiQL), graphql-ws on the same
// port and path, the REST routes and /health. The CLI's `sm serve` and server/main.ts use it.
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Store } from '../core/kernel/store.ts';
import { jobHandlers } from '../services/job-handlers.ts';
import { maintenanceSchedule } from '../services/maintenance.ts';
import { startWorker, type Worker } from '../jobs/worker.ts';
import { nerEnricher } from '../services/ner.ts';
import { startScheduler, type Scheduler } from '../jobs/scheduler.ts';
import { readWorkerCount, startReadPool, type ReadPool } from '../services/read-pool.ts';
import { createRuntime, type Runtime } from '../services/runtime.ts';
import { logger as defaultLogger } from '../logger.ts';
import { admission } from './admission.ts';
import { assertSafeBinding, assertStrongToken } from './auth.ts';
import { createChangeFeed } from './events.ts';
import { attachWebSocket } from './ws.ts';
import { createGraphQLServer, GRAPHQL_PATH, type GraphQLServer } from './yoga.ts';

export type AppOptions = {
  store: Store;
  /** The store with its providers (LLM); built from the store's config and process.env by start() when omitted. */
  runtime?: Runtime;
  /** Run background work while listening: the job worker (LLM extraction, consolidation) and the maintenance schedule. Default true. */
  jobs?: boolean;
  /** Run the nightly maintenance schedule while listening (with `jobs`). Default true; `sm serve --no-scheduler` turns it off. */
  scheduler?: boolean;
  /** Interface to listen on; a non-loopback host requires `token`. */
  host: string;
  /** Port; 0 picks a free one (see the `port` that start() returns). */
  port: number;
  /** API token (SM_API_TOKEN). When set, every HTTP request and WebSocket connection must carry it. */
  token?: string;
  logger?: Logger;
  /** Read workers to start, instead of `server.read_workers` (tests). */
  readWorkers?: number;
  /** Send a read to a worker even when it is the only request under way (tests; by default it runs in-process). */
  loneReadsToWorkers?: boolean;
  /** How long stop() lets in-flight requests finish before cutting connections. */
  shutdownGraceMs?: number;
};

export type App = {
  /** Listens; resolves with the GraphQL endpoint URL (`http://host:port/graphql`) and the bound port. */
  start(): Promise<{ url: string; port: number }>;
  /** Stops accepting, closes subscriptions, lets in-flight requests finish. Does not close the store. */
  stop(): Promise<void>;
};

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** Why listening failed, said with what to do about it. */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE')
    return new Error(
      `port ${port} on ${host} is already in use: stop what listens there, or pick another port with --port or SM_PORT`,
    );
  if (error.code === 'EACCES')
    return new Error(`not allowed to listen on port ${port} of ${host}: pick a port above 1023 with --port or SM_PORT`);
  return error;
}

/** The responses still being computed; once `stopping()`, each closes its connection when sent. */
function responsesInFlight(server: Server, stopping: () => boolean): Set<ServerResponse> {
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (stopping()) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return inFlight;
}

/**
 * Stops accepting (so clients cannot reconnect) and resolves once in-flight requests are answered,
 * cutting connections after `graceMs`. A request is answered after its write transaction settles,
 * so an answered request is a committed (or rolled back) one.
 */
async function closeHttp(
  server: Server,
  parts: { inFlight: Set<ServerResponse>; ws: { close(): Promise<void> } | null; graceMs: number },
) {
  const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  server.closeIdleConnections();
  for (const res of parts.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
  await parts.ws?.close();
  const grace = setTimeout(() => server.closeAllConnections(), parts.graceMs);
  await closed;
  clearTimeout(grace);
}

export function buildApp(options: AppOptions): App {
  const { store, host, port } = options;
  const token = options.token || undefined;
  const log = (options.logger ?? defaultLogger).child({ component: 'server' });
  assertStrongToken(token);
  assertSafeBinding(host, token);

  const feed = createChangeFeed(store);
  // Built by start(): the runtime reads the store (vector settings), which takes a query.
  let runtime: Runtime | null = options.runtime ?? null;
  let yoga: GraphQLServer | null = null;
  let handler: RequestListener | null = null;
  // Requests arrive only once listening, after start() has set the handler.
  const server = createServer(admission(store.config.server.max_requests, (req, res) => handler!(req, res)));
  let worker: Worker | null = null;
  let scheduler: Scheduler<string> | null = null;
  let stopping: Promise<void> | null = null;
  // The read workers this app started (a runtime passed in may come with its own, or none).
  let reads: ReadPool | null = null;
  const inFlight = responsesInFlight(server, () => stopping !== null);
  // Attached once listening: a busy port is then one clear error from start(), not also the WebSocket server's.
  let ws: ReturnType<typeof attachWebSocket> | null = null;

  return {
    start: async () => {
      runtime ??= await createRuntime(store);
      const running = runtime;
      if (running.reads === undefined)
        running.reads = reads = startReadPool(
          store,
          options.readWorkers ?? readWorkerCount(store.config.server.read_workers),
          {
            alone: options.loneReadsToWorkers ? undefined : () => inFlight.size <= 1,
          },
        );
      yoga ??= createGraphQLServer({ runtime: running, changes: feed.changes, token, log });
      handler = yoga;
      const graphql = yoga;
      return new Promise((resolve, reject) => {
        server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, host, port)));
        server.listen(port, host, () => {
          server.removeAllListeners('error');
          ws = attachWebSocket({ server, store, yoga: graphql, token, log });
          const bound = (server.address() as AddressInfo).port;
          const url = `http://${urlHost(host)}:${bound}${GRAPHQL_PATH}`;
          if (options.jobs !== false) {
            worker = startWorker(store, jobHandlers(running), { concurrency: store.config.worker.concurrency });
            if (options.scheduler !== false) scheduler = startScheduler(maintenanceSchedule(running, nerEnricher));
          }
          log.info({ url, database: store.sql.location, auth: token ? 'token' : 'loopback' }, 'listening');
          resolve({ url, port: bound });
        });
      });
    },
    stop: () =>
      (stopping ??= (async () => {
        scheduler?.stop();
        feed.close();
        await closeHttp(server, { inFlight, ws, graceMs: options.shutdownGraceMs ?? 5000 });
        // Jobs already running finish (their writes commit); queued ones resume on the next start.
        await worker?.stop();
        if (reads && runtime?.reads === reads) runtime.reads = undefined;
        await reads?.stop();
        await yoga?.dispose();
        log.info('stopped');
      })()),
  };
}
