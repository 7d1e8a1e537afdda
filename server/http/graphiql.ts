// GraphiQL at /graphql, served whole from @graphql-yoga/render-graphiql (its scripts, styles and
// editor workers are inlined in the page: no request leaves the machine, unlike yoga's default
// page, which loads them from a CDN). The default tab holds example operations; the headers tab
// is prefilled with the token the inspector keeps in sessionStorage, when there is one.
// Subscriptions go over SSE on the same URL, so the headers typed in GraphiQL apply to them too
// (its graphql-ws transport would send none of them). The page goes out gzipped (9 MB -> 2.4 MB)
// under a CSP that lets it reach this server only.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

const gzip = promisify(gzipCallback);

/** Where the inspector (web/) keeps the token a person typed: sessionStorage, this key. */
export const TOKEN_STORAGE_KEY = 'sm.token';

export const GRAPHIQL_EXAMPLES = `# Symbiosis Memory. Run an operation with the
# ▶ button (Ctrl-Enter) and pick it by name; the
# docs pane describes every type and field.
# A token, when needed, goes in Headers:
# {"Authorization": "Bearer …"}

query Overview {
  viewer { admin userId readOnly }
  stats { memories { active archived mid long } turns sessions entities }
  memories(first: 5, sort: SCORE) {
    totalCount
    edges { node { id content layer status score confidence importance tags } }
  }
}

query Search {
  search(query: "where do I live", limit: 5) {
    kind id text score
    signals { signal rank }
  }
}

query Explain {
  explain(id: 1) {
    status score
    scoreTerms { frequency recency importance }
    rules
    sources { reason turn { sessionId text } }
    decisions { action detail at }
  }
}

mutation AddTurn {
  addTurn(input: { sessionId: "graphiql", role: USER, text: "I live in Porto and I like JRPGs" }) {
    extracted { action memory { id content } }
  }
}

subscription LiveMemories {
  memoryEvents { action memoryId at memory { content layer status } }
}
`;

/** A placeholder the options carry, replaced in the page by a call that reads the token in the browser. */
const HEADERS_MARKER = '__SM_TOKEN_HEADERS__';

export const graphiqlOptions: GraphiQLOptions = {
  title: 'Symbiosis Memory',
  defaultQuery: GRAPHIQL_EXAMPLES,
  subscriptionsProtocol: 'SSE',
  headers: HEADERS_MARKER,
  // The token is never written to localStorage by GraphiQL.
  shouldPersistHeaders: false,
};

// Runs before GraphiQL reads its options: the token of this tab (never sent by the server).
const PREFILL = `<script>
function smTokenHeaders() {
  try {
    var token = sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)});
    return token ? JSON.stringify({ Authorization: 'Bearer ' + token }, null, 2) : '{}';
  } catch (error) {
    return '{}';
  }
}
</script>`;

/**
 * What the GraphiQL page may do: its inline scripts and editor workers (blob: URLs), inline
 * styles, data: icons and fonts, and requests to this server only.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

let page: string | null = null;
let gzipped: Promise<Buffer> | null = null;

/**
 * The page (about 9 MB, mostly the editor), rendered once. The package is loaded on the first
 * request, so a server that nobody opens GraphiQL on never parses it (through require: the CLI
 * bundle leaves it in node_modules, and its compile cache has no dynamic import).
 */
export function renderGraphiQL(options: GraphiQLOptions = graphiqlOptions): string {
  if (page) return page;
  const { renderGraphiQL: render } = createRequire(import.meta.url)(
    '@graphql-yoga/render-graphiql',
  ) as typeof import('@graphql-yoga/render-graphiql');
  const html = render(options);
  const quoted = JSON.stringify(HEADERS_MARKER);
  if (!html.includes(quoted) || !html.includes('<head>'))
    throw new Error('GraphiQL page: unexpected template (token prefill not applied)');
  page = html.replace('<head>', `<head>\n${PREFILL}`).replace(quoted, 'smTokenHeaders()');
  return page;
}

/** The page gzipped (2.4 MB instead of 9), compressed once off the event loop. */
const gzippedPage = () => (gzipped ??= gzip(Buffer.from(renderGraphiQL())));

let etag: string | null = null;
/** The page's version: a browser that has it revalidates (304) instead of fetching it again. */
const pageTag = () => (etag ??= `"${createHash('sha256').update(renderGraphiQL()).digest('base64url').slice(0, 22)}"`);

/**
 * GraphiQL for a browser's GET of /graphql (Accept: text/html), without a token like any page:
 * what it runs goes through the access guard with the headers typed in it. Other requests to
 * /graphql are GraphQL's.
 */
export function graphiqlRoute(graphqlPath: string, headers: Record<string, string>): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || url.pathname !== graphqlPath) return;
      if (!request.headers.get('accept')?.includes('text/html')) return;
      const common = {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        etag: pageTag(),
        vary: 'accept, accept-encoding',
        'content-security-policy': GRAPHIQL_CSP,
        ...headers,
      };
      if (request.headers.get('if-none-match') === common.etag)
        return endResponse(new Response(null, { status: 304, headers: common }));
      const head = request.method === 'HEAD';
      if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
        const body = await gzippedPage();
        return endResponse(
          new Response(head ? null : new Uint8Array(body), {
            status: 200,
            headers: { ...common, 'content-encoding': 'gzip', 'content-length': String(body.length) },
          }),
        );
      }
      const body = renderGraphiQL();
      return endResponse(new Response(head ? null : body, { status: 200, headers: common }));
    },
  };
}
