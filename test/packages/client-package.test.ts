// The typed client as a package: `npm pack` in client/ (its prepack builds ESM and CommonJS with
// the root's TypeScript; client/ has no node_modules of its own), installed from the tarball into
// a copy of examples/client-node, whose ESM and CommonJS entries run with node against a real
// server. Then the client's typed errors and its retries, on real sockets.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSdk } from '../../client/src/generated/sdk.ts';
import { createClient, SymbiosisClientError, SymbiosisError } from '../../client/src/index.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

const ROOT = join(import.meta.dirname, '../..');
const TOKEN = 'client-package-test-token';

type Run = { code: number; stdout: string; stderr: string };
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let work: string;
let project: string;
let packed: { filename: string; files: { path: string }[] };
let server: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sm-client-package-'));
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], join(ROOT, 'client'));
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  const tarball = join(work, packed.filename);
  project = join(work, 'project');
  cpSync(join(ROOT, 'examples/client-node'), project, { recursive: true });
  // From npm's cache (the root install put graphql, graphql-ws, zod and ws there). ws is for the
  // subscription below: Node 20 has no global WebSocket.
  const ws = (JSON.parse(readFileSync(join(ROOT, 'node_modules/ws/package.json'), 'utf8')) as { version: string })
    .version;
  const install = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `ws@${ws}`],
    project,
  );
  expect(install.code, install.stderr).toBe(0);
  [server, guarded] = await Promise.all([startServer(), startServer({ token: TOKEN })]);
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.close(), guarded?.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('client package', () => {
  it('packs the ESM and CommonJS builds, the operations and the README, and no sources', () => {
    const files = packed.files.map((f) => f.path);
    for (const file of [
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'README.md',
      'operations/turns.graphql',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => f.startsWith('src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  });

  it('resolves to dist/esm for import and dist/cjs for require, with its dependencies installed beside it', async () => {
    const esm = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(import.meta.resolve('@symbiosis-memory/client'))"],
      project,
    );
    expect(esm.stdout.trim()).toMatch(/node_modules\/@symbiosis-memory\/client\/dist\/esm\/index\.js$/);
    const script = `const { createRequire } = require('node:module');
const entry = require.resolve('@symbiosis-memory/client');
const from = createRequire(entry);
console.log(JSON.stringify([entry, ...['graphql', 'graphql-ws', 'zod'].map((name) => from.resolve(name))]));`;
    const cjs = await run(process.execPath, ['-e', script], project);
    expect(cjs.stderr).toBe('');
    const [entry, ...dependencies] = JSON.parse(cjs.stdout) as string[];
    expect(entry).toMatch(/node_modules\/@symbiosis-memory\/client\/dist\/cjs\/index\.js$/);
    for (const path of dependencies) expect(path.startsWith(join(project, 'node_modules'))).toBe(true);
    // graphql-ws's own CommonJS build, not its ES module.
    expect(dependencies[1]).toMatch(/\.cjs$/);
  });

  it.each([
    ['ESM', 'index.mjs', 'pkg-esm'],
    ['CommonJS', 'index.cjs', 'pkg-cjs'],
  ])('the example as %s adds a turn and searches', async (_kind, entry, session) => {
    const result = await run(process.execPath, [entry, session], project, { SM_URL: server.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { turns } = await server.client().turns({ sessionId: session });
    expect(turns.totalCount).toBe(1);
    expect(result.stdout).toContain(`stored turn ${turns.edges[0]!.node.id} in ${session}`);
    expect(result.stdout).toMatch(/^ {2}CREATED /m);
    const hits = Number(/search: (\d+) hits/.exec(result.stdout)?.[1]);
    expect(hits).toBeGreaterThan(0);
    expect(result.stdout).toContain(turns.edges[0]!.node.text);
  });

  it('subscriptions work from the installed package (ws on Node 20)', async () => {
    writeFileSync(
      join(project, 'subscribe.mjs'),
      `import WebSocket from 'ws';
import { createClient, Role } from '@symbiosis-memory/client';
const client = createClient({ url: process.env.SM_URL, webSocketImpl: WebSocket });
const events = client.turnAdded({ sessionId: 'pkg-sub' })[Symbol.asyncIterator]();
const next = events.next();
let event = null;
// The server starts listening a moment after the subscribe message: add turns until one is seen.
for (let i = 0; !event && i < 50; i++) {
  await client.addTurn({ input: { sessionId: 'pkg-sub', role: Role.User, text: 'hello from elsewhere', autoExtract: false } });
  event = await Promise.race([next, new Promise((r) => setTimeout(() => r(null), 100))]);
}
console.log(event.value.turnAdded.text);
await client.dispose();
`,
    );
    const result = await run(process.execPath, ['subscribe.mjs'], project, { SM_URL: server.url });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('hello from elsewhere');
  });

  it('a server out of reach is NETWORK with the URL; a wrong token is AUTH', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/graphql`;
    const refused = await run(process.execPath, ['index.cjs'], project, { SM_URL: url });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`NETWORK: cannot reach ${url}: connection refused (ECONNREFUSED)`);
    const wrong = await run(process.execPath, ['index.mjs'], project, {
      SM_URL: guarded.url,
      SM_API_TOKEN: 'not-the-token',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^AUTH: missing, wrong or revoked token/);

    // The same, in detail, from the sources the server uses.
    const network = await createClient({ url, retries: 0 })
      .stats()
      .catch((e: unknown) => e);
    expect(network).toBeInstanceOf(SymbiosisError);
    expect(network).toMatchObject({ name: 'SymbiosisError', code: 'NETWORK', status: undefined, errors: [] });
    expect((network as Error).cause).toBeInstanceOf(TypeError);
    const auth = await createClient({ url: guarded.url, token: 'not-the-token' })
      .stats()
      .catch((e: unknown) => e);
    expect(auth).toMatchObject({ code: 'AUTH', serverCode: 'UNAUTHENTICATED', status: 401 });
    // The old name still works.
    expect(auth).toBeInstanceOf(SymbiosisClientError);
    const notFound = await createClient({ url: server.url })
      .explain({ id: 999_999 })
      .catch((e: unknown) => e);
    expect(notFound).toMatchObject({ code: 'NOT_FOUND', serverCode: 'NOT_FOUND', status: 200 });
  });
});

describe('retries', () => {
  let proxy: Server;
  let proxyUrl: string;
  /** Requests the proxy saw, by operation name; the first of each is answered 503. */
  const seen = new Map<string, number>();

  beforeAll(async () => {
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      const name = (JSON.parse(body) as { operationName: string }).operationName;
      seen.set(name, (seen.get(name) ?? 0) + 1);
      if (seen.get(name) === 1) {
        res.writeHead(503, { 'retry-after': name === 'stats' ? '1' : '0', 'content-type': 'text/plain' }).end('busy');
        return;
      }
      const upstream = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res
        .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
        .end(await upstream.text());
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => proxy.once('listening', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => new Promise((resolve) => proxy.close(resolve)));

  it('a query answered 503 is sent again after Retry-After, and succeeds', async () => {
    const started = Date.now();
    const { stats } = await createClient({ url: proxyUrl }).stats();
    expect(stats.memories.total).toBeGreaterThanOrEqual(0);
    expect(seen.get('stats')).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('a mutation answered 503 is not sent again, and fails with the status', async () => {
    const error = await createClient({ url: proxyUrl })
      .remember({ input: { content: 'User owns a blue bicycle' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SymbiosisError', status: 503 });
    expect(seen.get('remember')).toBe(1);
    const { search } = await server.client().search({ query: 'blue bicycle' });
    expect(search).toEqual([]);
  });

  it('retries: 0 disables retries', async () => {
    const error = await createClient({ url: proxyUrl, retries: 0 })
      .sessions()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(seen.get('sessions')).toBe(1);
  });

  it('NETWORK errors: a query is tried 1 + retries times with growing pauses, a mutation once', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/graphql`;
    const calls: number[] = [];
    const counting: typeof fetch = (input, init) => {
      calls.push(Date.now());
      return fetch(input, init);
    };
    await expect(createClient({ url, fetch: counting }).stats()).rejects.toMatchObject({ code: 'NETWORK' });
    expect(calls).toHaveLength(3);
    // Backoff from ~100 ms, doubling, jitter between half and all of it.
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(45);
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(95);
    calls.length = 0;
    await expect(createClient({ url, fetch: counting, retries: 3 }).memories()).rejects.toMatchObject({
      code: 'NETWORK',
    });
    expect(calls).toHaveLength(4);
    calls.length = 0;
    await expect(createClient({ url, fetch: counting }).gc()).rejects.toMatchObject({ code: 'NETWORK' });
    expect(calls).toHaveLength(1);
  });
});

describe('client README', () => {
  it('shows every method of the SDK with an example', () => {
    const readme = readFileSync(join(ROOT, 'client/README.md'), 'utf8');
    const methods = Object.keys(getSdk(() => Promise.resolve({} as never)));
    expect(methods.length).toBeGreaterThan(30);
    const missing = methods.filter((name) => !new RegExp(`\\.${name}\\(`).test(readme));
    expect(missing, 'methods without an example (`sm.name(...)`) in client/README.md').toEqual([]);
  });
});
