// Admission: at most server.max_requests requests are handled at once. Node would otherwise take
// every request it is sent and queue the work without bound (memory grows, and every client
// waits longer); past the limit a request is answered at once, before it is read or parsed: 503
// with Retry-After, so the client backs off and tries again. Streams (SSE subscriptions, MCP
// sessions), pages, /health and /ready are not counted: they last long, or cost nothing.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { READY_PATH } from './readiness.ts';
import { GRAPHQL_PATH, HEALTH_PATH } from './yoga.ts';

/** Retry-After of a refused request: the requests ahead of it are answered within about that. */
export const BUSY_RETRY_SECONDS = 1;

const counted = (req: IncomingMessage) => {
  const accept = req.headers.accept ?? '';
  if (accept.includes('text/event-stream')) return false;
  if (req.method === 'GET' && accept.includes('text/html')) return false;
  return !req.url?.startsWith(HEALTH_PATH) && !req.url?.startsWith(READY_PATH);
};

function refuse(req: IncomingMessage, res: ServerResponse, max: number) {
  const message = `more than ${max} requests at once (server.max_requests): retry in ${BUSY_RETRY_SECONDS} s`;
  // The shape of the endpoint's own errors: GraphQL's, or the REST routes'.
  const graphql = req.url?.startsWith(GRAPHQL_PATH);
  const body = graphql
    ? { errors: [{ message, extensions: { code: 'UNAVAILABLE', retryAfter: BUSY_RETRY_SECONDS } }] }
    : { error: { code: 'UNAVAILABLE', message } };
  res.writeHead(503, {
    'content-type': graphql ? 'application/graphql-response+json; charset=utf-8' : 'application/json; charset=utf-8',
    'retry-after': String(BUSY_RETRY_SECONDS),
  });
  // The body is not read (node discards it), and the connection stays open for the retry.
  res.end(JSON.stringify(body));
}

/** `handler` behind a limit of `max` requests at once. */
export function admission(max: number, handler: RequestListener): RequestListener {
  let active = 0;
  return (req, res) => {
    if (!counted(req)) return handler(req, res);
    if (active >= max) return refuse(req, res, max);
    active++;
    res.once('close', () => active--);
    return handler(req, res);
  };
}
