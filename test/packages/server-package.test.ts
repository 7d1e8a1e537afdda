// The service as a package: `npm pack` of the checkout (prepare builds the CLI bundle and the
// inspector), installed with `npm install -g` into an empty prefix with no dev dependencies, then
// driven from outside the checkout: `sm serve` answers GraphQL and serves the inspector and
// GraphiQL, `sm mcp` lists and runs its tools for the MCP SDK's client, and the other commands run.
//
// better-sqlite3 would compile from source during the install (about 2 min on 2 cores): the test
// hands its install script the binary this checkout already built, as a local prebuild (the file
// name prebuild-install looks for), so the install runs every script as a user's does, minus the
// compiler. From npm's cache (the checkout's install filled it): about a minute.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

type Run = { code: number; stdout: string; stderr: string };
function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeout?: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeout ?? 60_000,
        maxBuffer: 64 << 20,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

let work: string;
let prefix: string;
let sm: string;
let installed: string;
let packed: { filename: string; files: { path: string }[] };
const timings: Record<string, number> = {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sm-server-package-'));
  let started = Date.now();
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, timeout: 180_000 });
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as (typeof packed)[])[0]!;
  timings.pack = Date.now() - started;

  const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as {
    version: string;
  };
  const prebuilds = join(work, 'prebuilds');
  mkdirSync(prebuilds);
  const prebuild = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = await run(
    'tar',
    [
      'czf',
      join(prebuilds, prebuild),
      '-C',
      join(ROOT, 'node_modules/better-sqlite3'),
      'build/Release/better_sqlite3.node',
    ],
    { cwd: ROOT },
  );
  expect(tar.code, tar.stderr).toBe(0);

  prefix = join(work, 'prefix');
  started = Date.now();
  const install = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)],
    {
      cwd: work,
      // Read by prebuild-install (npm 11 warns that it does not know the key, and passes it on).
      env: { npm_config_better_sqlite3_local_prebuilds: prebuilds },
      timeout: 400_000,
    },
  );
  expect(install.code, install.stderr).toBe(0);
  timings.install = Date.now() - started;
  sm = join(prefix, 'bin/sm');
  installed = join(prefix, 'lib/node_modules/symbiosis-memory');
}, 600_000);

// The installed tree is some 250 packages: removing it takes a while on a busy disk.
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
}, 180_000);

/** `sm` as installed, from a folder outside the checkout. */
const smRun = (args: string[], env: Record<string, string> = {}) =>
  run(sm, args, { cwd: work, env: { SM_LOG_LEVEL: 'error', ...env } });

describe('the installed server package', () => {
  it('packs the CLI bundle, the built inspector, the migrations and the lockfile, and no sources', () => {
    const files = packed.files.map((f) => f.path);
    for (const file of [
      'bin/sm.js',
      'dist/cli/sm.mjs',
      'dist/cli/read-worker.mjs',
      'web/dist/index.html',
      'drizzle/migrations/0000_init.sql',
      'drizzle/migrations/meta/_journal.json',
      'npm-shrinkwrap.json',
      'README.md',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.some((f) => f.startsWith('drizzle/pg-migrations/'))).toBe(true);
    expect(
      files.filter(
        (f) =>
          /^(server|schema|client|test|bench|scripts|python)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
    // The lockfile ships only with the tarball: the checkout keeps package-lock.json alone.
    expect(existsSync(join(ROOT, 'npm-shrinkwrap.json'))).toBe(false);
    console.log(
      `npm pack ${(timings.pack! / 1000).toFixed(1)} s, npm install -g of the tarball ${(timings.install! / 1000).toFixed(1)} s`,
    );
  });

  it('installs without any dev dependency, better-sqlite3 built by its own install script', () => {
    const modules = join(installed, 'node_modules');
    const present = Object.keys(manifest.devDependencies).filter((name) => existsSync(join(modules, name)));
    expect(present).toEqual([]);
    for (const name of ['tsx', 'esbuild', 'vitest', 'typescript'])
      expect(existsSync(join(modules, name)), name).toBe(false);
    // The checkout's binary, put in place by prebuild-install (not compiled again).
    const binary = 'better-sqlite3/build/Release/better_sqlite3.node';
    expect(readFileSync(join(modules, binary)).equals(readFileSync(join(ROOT, 'node_modules', binary)))).toBe(true);
    expect(existsSync(join(installed, 'server'))).toBe(false);
  });

  it('runs the commands: version, remember, search, list, stats, export and import, tools, doctor', async () => {
    const version = await smRun(['--version']);
    expect(version.stdout.trim()).toBe(manifest.version);
    const db = join(work, 'commands', 'memory.db');
    const remembered = await smRun(['--db', db, 'remember', '--text', 'User keeps bees on the roof', '--json']);
    expect(remembered.code, remembered.stderr).toBe(0);
    const search = await smRun(['--db', db, 'search', 'bees', '--json']);
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(search.stdout))).toContain('User keeps bees on the roof');
    expect((await smRun(['--db', db, 'list'])).stdout).toContain('bees');
    expect(JSON.parse((await smRun(['--db', db, 'stats', '--json'])).stdout)).toMatchObject({ memories: { total: 1 } });
    const backup = join(work, 'commands', 'backup.jsonl');
    expect((await smRun(['--db', db, 'export', '--out', backup])).code).toBe(0);
    const restored = await smRun(['--db', join(work, 'commands', 'restored.db'), 'import', backup, '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ memory: { added: 1 } });
    const tools = JSON.parse((await smRun(['tools', '--format', 'anthropic'])).stdout) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('search_memory');
    const doctor = await smRun(['--db', db, 'doctor']);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/pass {2}sqlite-vec/);
  });

  it('sm serve answers GraphQL, and serves the inspector and GraphiQL', async () => {
    const server: ChildProcess = spawn(sm, ['--db', join(work, 'serve', 'memory.db'), 'serve', '--port', '0'], {
      cwd: work,
      env: { ...process.env, SM_LOG_LEVEL: 'error' },
    });
    try {
      let log = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`sm serve did not start: ${log}`)), 30_000);
        server.stderr!.on('data', (chunk: Buffer) => {
          log += chunk;
          const found = /Symbiosis Memory on (http:\/\/\S+\/graphql)/.exec(log);
          if (found) {
            clearTimeout(timer);
            resolve(found[1]!);
          }
        });
        server.once('exit', (code) => reject(new Error(`sm serve exited (${code}): ${log}`)));
      });
      const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.json()) as { data?: Record<string, any>; errors?: unknown[] };
      };
      const added = await graphql(
        'mutation($text: String!) { addTurn(input: { sessionId: "pkg", role: USER, text: $text }) { turn { id } extracted { action } } }',
        { text: 'I moved to Porto in June.' },
      );
      expect(added.errors).toBeUndefined();
      expect(added.data!.addTurn.turn.id).toBeGreaterThan(0);
      const found = await graphql('{ search(query: "Porto") { kind text } }');
      expect(found.data!.search.map((h: { text: string }) => h.text)).toContain('I moved to Porto in June.');

      const base = url.replace(/\/graphql$/, '');
      const inspector = await fetch(`${base}/`);
      expect(inspector.status).toBe(200);
      const page = await inspector.text();
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`${base}${script}`)).status).toBe(200);
      const graphiql = await fetch(url, { headers: { accept: 'text/html' } });
      expect(graphiql.status).toBe(200);
      expect(await graphiql.text()).toMatch(/graphiql/i);
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('sm mcp lists its tools and runs one for the MCP SDK client', async () => {
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: sm,
        args: ['--db', join(work, 'mcp', 'memory.db'), 'mcp'],
        cwd: work,
        env: { ...process.env, SM_LOG_LEVEL: 'error' } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['search_memory', 'remember_fact', 'get_context']),
      );
      await client.callTool({ name: 'remember_fact', arguments: { text: 'User is training for a half marathon' } });
      const result = (await client.callTool({ name: 'search_memory', arguments: { query: 'marathon' } })) as {
        content: { text: string }[];
      };
      expect(result.content[0]!.text).toContain('half marathon');
    } finally {
      await client.close();
    }
  });
});
