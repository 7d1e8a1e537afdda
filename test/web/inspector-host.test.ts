// The host's side of the inspector and GraphiQL, over plain HTTP: the built page and its assets
// with their content types, compression, cache headers and CSP, without a token even where the
// API needs one; the first load's JavaScript budget; nothing in either page that points off the
// machine; the banner's Inspector row.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../server/core/kernel/config.ts';
import { formatBanner } from '../../server/http/banner.ts';
import { WEB_DIST } from '../../server/http/inspector.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

const TOKEN = 'inspector-host-token-0123456789';
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ token: TOKEN });
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.base}${path}`, { headers });
/** Script and stylesheet paths the page loads. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

/**
 * http(s) URLs in a text, less the names libraries use as identifiers and never fetch: XML
 * namespaces (w3.org), JSON Schema dialects (json-schema.org, zod's), and URLs a template builds.
 */
const externalUrls = (text: string) =>
  [...text.matchAll(/https?:\/\/[^\s"'`)<>\\]+/g)]
    .map((m) => m[0])
    .filter((url) => !/^https?:\/\/(www\.w3\.org|json-schema\.org)\/|\$\{/.test(url));

describe('the inspector at /', () => {
  it('serves the page without a token, under a CSP that allows only this server', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    const html = await page.text();
    expect(html).toContain('<div id="app">');
    expect(assetsOf(html)).toHaveLength(2);
    // The API itself still wants the token.
    expect((await server.graphql('{ viewer { admin } }', {}, { authorization: '' })).status).toBe(401);
    expect(
      (
        await fetch(`${server.base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query":"{ viewer { admin } }"}',
        })
      ).status,
    ).toBe(401);
  });

  it('serves hashed assets with their types, cached for a year, brotli or gzip when accepted', async () => {
    const html = await (await get('/')).text();
    for (const path of assetsOf(html)) {
      const type = path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
      const plain = await get(path, { 'accept-encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe(type);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('content-encoding')).toBeNull();
      const raw = Buffer.from(await plain.arrayBuffer());
      // fetch decodes what it asked for; the header says what travelled.
      const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(Number(br.headers.get('content-length'))).toBeLessThan(raw.length / 3);
      expect(Buffer.from(await br.arrayBuffer()).equals(raw)).toBe(true);
      const gz = await get(path, { 'accept-encoding': 'gzip' });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      expect(Buffer.from(await gz.arrayBuffer()).equals(raw)).toBe(true);
    }
    expect((await get('/assets/app-NOSUCHFILE.js')).status).toBe(404);
    expect((await get('/assets/..%2F..%2Fpackage.json')).status).not.toBe(200);
    expect((await get('/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
    expect((await fetch(`${server.base}/`, { method: 'HEAD' })).status).toBe(200);
  });

  it('first load: at most 300 KB of compressed JavaScript, and nothing fetched from elsewhere', () => {
    const html = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    const assets = assetsOf(html);
    const scripts = assets.filter((a) => a.endsWith('.js'));
    expect(scripts).toHaveLength(1);
    const gz = scripts.reduce((sum, a) => sum + readFileSync(join(WEB_DIST, `${a}.gz`)).length, 0);
    expect(gz).toBeLessThanOrEqual(300 * 1024);
    // The client's model tools (zod schemas) are left out of the page.
    expect(readFileSync(join(WEB_DIST, scripts[0]!), 'utf8')).not.toContain('ZodError');
    // The page is whole: the JS and CSS name no other host.
    expect(externalUrls(html)).toEqual([]);
    for (const asset of assets) {
      const text = readFileSync(join(WEB_DIST, asset), 'utf8');
      expect(externalUrls(text), asset).toEqual([]);
    }
    // Everything in dist/ was written by the last build.
    expect(
      readdirSync(join(WEB_DIST, 'assets'))
        .filter((f) => !/\.(br|gz)$/.test(f))
        .sort(),
    ).toEqual(assets.map((a) => a.slice('/assets/'.length)).sort());
  });
});

describe('GraphiQL at /graphql', () => {
  it('is the packaged page, gzipped, with example operations, the token prefill and its own CSP, without a token', async () => {
    const page = await get('/graphql', { accept: 'text/html', 'accept-encoding': 'identity' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    expect(html).toContain('<title>Symbiosis Memory</title>');
    expect(html).toContain('sessionStorage.getItem("sm.token")');
    expect(html).toContain('"headers":smTokenHeaders()');
    for (const operation of [
      'query Overview',
      'query Search',
      'query Explain',
      'mutation AddTurn',
      'subscription LiveMemories',
    ])
      expect(html).toContain(operation);
    expect(html).toContain('"subscriptionsProtocol":"SSE"');
    // No script, style or font from a CDN: every <script> and <link> is inline.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+rel="stylesheet"/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs/);

    const zipped = await get('/graphql', { accept: 'text/html', 'accept-encoding': 'gzip, br' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Number(zipped.headers.get('content-length'))).toBeLessThan(html.length / 3);
    const raw = await fetch(`${server.base}/graphql`, {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip' },
    }).then((r) => r.text());
    expect(raw).toBe(html);
    // Revalidated, not downloaded again.
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await get('/graphql', { accept: 'text/html', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('leaves GraphQL requests to the API (and its token check)', async () => {
    const viaGet = await get('/graphql?query=%7Bviewer%7Badmin%7D%7D', { accept: 'application/json' });
    expect(viaGet.status).toBe(401);
    const ok = await server.graphql('{ viewer { admin } }');
    expect(ok.body.data).toEqual({ viewer: { admin: true } });
  });
});

describe('banner', () => {
  it('names the inspector first', () => {
    const banner = formatBanner({
      version: '0.1.0',
      url: 'http://127.0.0.1:8787/graphql',
      dbPath: '/tmp/x.db',
      created: false,
      token: false,
      config: resolveConfig([]),
    });
    expect(banner.split('\n')[1]).toBe('  Inspector   http://127.0.0.1:8787/');
    expect(banner).toContain('  GraphQL     http://127.0.0.1:8787/graphql (GraphiQL in a browser)');
  });
});
