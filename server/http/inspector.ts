// The inspector at /: the static single-page app built from web/ into web/dist (npm install and
// `npm run build:web` build it). Files are served as they are, without a token: the page holds no
// data, and everything it shows comes through /graphql with the token its user types. Hashed
// assets are cached for a year, the page itself revalidated; .br/.gz siblings written by the
// build are sent to browsers that accept them. A CSP keeps the page to this server only.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';

/** The built app (web/dist), relative to this file; the CLI bundle (dist/cli) sits at the same depth. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export const INSPECTOR_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Symbiosis Memory</title>
<p>The inspector is not built. Run <code>npm run build:web</code> (npm install does it), then reload.
GraphiQL is at <a href="/graphql">/graphql</a>.</p>`;

/** The file a path names: / is the page, /assets/NAME an asset; anything else is not ours. */
function fileFor(pathname: string): { file: string; immutable: boolean } | null {
  if (pathname === '/' || pathname === '/index.html') return { file: 'index.html', immutable: false };
  if (pathname === '/favicon.svg') return { file: 'favicon.svg', immutable: false };
  const asset = /^\/assets\/([\w-]+\.[\w.]+)$/.exec(pathname);
  if (asset && !asset[1]!.includes('..')) return { file: `assets/${asset[1]}`, immutable: true };
  return null;
}

async function serve(
  root: string,
  file: string,
  immutable: boolean,
  acceptEncoding: string,
  head: boolean,
): Promise<Response | null> {
  const path = join(root, file);
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  const headers: Record<string, string> = {
    'content-type': type,
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    ...SECURITY_HEADERS,
  };
  if (file === 'index.html') headers['content-security-policy'] = INSPECTOR_CSP;
  let body: Buffer | null = null;
  for (const [encoding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    if (!new RegExp(`\\b${encoding}\\b`).test(acceptEncoding) || !existsSync(path + suffix)) continue;
    body = await readFile(path + suffix);
    headers['content-encoding'] = encoding;
    break;
  }
  try {
    body ??= await readFile(path);
  } catch {
    return null;
  }
  headers['content-length'] = String(body.length);
  return new Response(head ? null : new Uint8Array(body), { status: 200, headers });
}

/** Serves the inspector's files; placed before the access guard, since the page needs no token. */
export function inspectorRoute(options: { root?: string } = {}): Plugin {
  const root = options.root ?? WEB_DIST;
  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const target = fileFor(url.pathname);
      if (!target) return;
      const response = await serve(
        root,
        target.file,
        target.immutable,
        request.headers.get('accept-encoding') ?? '',
        request.method === 'HEAD',
      );
      if (response) return endResponse(response);
      if (target.file === 'index.html') {
        return endResponse(
          new Response(NOT_BUILT, {
            status: 503,
            headers: { 'content-type': TYPES['.html']!, 'cache-control': 'no-store', ...SECURITY_HEADERS },
          }),
        );
      }
      if (target.immutable)
        return endResponse(
          new Response('not found', { status: 404, headers: { 'content-type': TYPES['.txt']!, ...SECURITY_HEADERS } }),
        );
    },
  };
}
