// Starting on Postgres (and its start-up faults), through the real `sm`: the
// environment's SM_DATABASE_URL selects Postgres for embedded commands, `sm serve`, `sm mcp`
// and `npm start`; --db still names a SQLite file; a database out of reach is one clear line
// naming host, port and database (never the password) and exit 1; doctor and the nightly
// optimize work on a Postgres store. A real Postgres server (Debian's binaries) and PGlite.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockFolder } from '../../server/storage/postgres/folder-lock.ts';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.ts';
import { sm } from '../helpers/sm-cli.ts';

const ROOT = join(import.meta.dirname, '../..');
const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));
const temp = (name: string) => mkdtempSync(join(tmpdir(), `sm-pg-start-${name}-`));
type Check = { name: string; ok: boolean; detail: string; hint: string | null };

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startPostgresServer();
  url = await server.createDatabase('memories');
}, 60_000);
afterAll(() => server?.stop());

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Rows of a query on a database, read past the service. */
async function rowsOf(databaseUrl: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The tables a database has (a command that must not touch it leaves it without any). */
const tablesOf = async (databaseUrl: string) =>
  (
    await rowsOf(
      databaseUrl,
      "select table_name as name from information_schema.tables where table_schema = 'public' order by 1",
    )
  ).map((r) => r.name as string);

const doctor = async (env: Record<string, string | undefined>, args: string[] = []) => {
  const result = await sm([...args, 'doctor', '--json'], { SM_DB: undefined, ...env });
  return {
    ...result,
    checks: Object.fromEntries(((result.json ?? []) as Check[]).map((c) => [c.name, c])) as Record<string, Check>,
  };
};

describe('SM_DATABASE_URL selects Postgres', () => {
  it('for embedded commands: doctor reports the server, full-text search, pgvector off and the checks that ran', async () => {
    const { code, json, checks } = await doctor({ SM_DATABASE_URL: url });
    expect(code).toBe(0);
    expect((json as Check[]).map((c) => c.name)).toEqual([
      'database',
      'fts',
      'pgvector',
      'integrity',
      'llm',
      'embedding',
      'embedding-lock',
      'semantic',
      'jobs',
    ]);
    expect(checks.database).toMatchObject({
      ok: true,
      detail: expect.stringMatching(
        new RegExp(
          `^PostgreSQL \\d+\\.\\d+ at host 127\\.0\\.0\\.1, port ${server.port}, database "memories", \\d+\\.\\d MB \\(chosen by SM_DATABASE_URL\\)$`,
        ),
      ),
    });
    expect(checks.fts).toMatchObject({ ok: true, detail: 'full-text search (tsvector columns with GIN indexes) on' });
    // Debian's Postgres has no pgvector: search goes on without vectors, which is no failure when no embedding model is configured.
    expect(checks.pgvector).toMatchObject({
      ok: true,
      detail:
        'pgvector is not installed in this database: vectors are reranked in JavaScript from their stored float32 (slower)',
      hint: null,
    });
    expect(checks.integrity).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^data checksums (are )?o(n|ff).*: ok$/),
    });
    expect(checks.jobs).toMatchObject({ ok: true, detail: expect.stringMatching(/^0 pending \(0 overdue/) });
    expect(await tablesOf(url)).toContain('turns');
  });

  it('for embedded writes and reads: what sm writes is in the Postgres database, and sm reads it back', async () => {
    const env = { SM_DATABASE_URL: url, SM_DB: undefined, SM_USER: 'alice' };
    const remembered = await sm(['remember', '--text', 'Alice keeps bees on her roof', '--json'], env);
    expect(remembered.code).toBe(0);
    const found = await sm(['search', 'bees', '--json'], env);
    expect(found.code).toBe(0);
    expect(found.json.map((hit: { id: number; text: string }) => [hit.id, hit.text])).toContainEqual([
      remembered.json.memory.id,
      'Alice keeps bees on her roof',
    ]);
    expect(
      await rowsOf(url, 'select user_id, content from memories where id = $1', [remembered.json.memory.id]),
    ).toEqual([{ user_id: 'alice', content: 'Alice keeps bees on her roof' }]);
  });

  it('for sm mcp: the tools work on the Postgres store', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const env = { ...process.env, SM_DATABASE_URL: url, SM_LOG_LEVEL: 'error' } as Record<string, string>;
    delete env.SM_DB;
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SM, '--user', 'mcp-user', 'mcp'],
        env,
        stderr: 'pipe',
      }),
    );
    try {
      const saved = (await client.callTool({
        name: 'remember_fact',
        arguments: { text: 'The MCP user prefers tea to coffee' },
      })) as unknown as { structuredContent: { memory: { id: number } } };
      expect(
        await rowsOf(url, 'select user_id, content from memories where id = $1', [saved.structuredContent.memory.id]),
      ).toEqual([{ user_id: 'mcp-user', content: 'The MCP user prefers tea to coffee' }]);
    } finally {
      await client.close();
    }
  });

  it('pgvector off is no failure with an embedding model configured (vectors reranked in JavaScript), and says how to rerank in SQL', async () => {
    const { checks } = await doctor({
      SM_DATABASE_URL: url,
      SM_CONFIG__EMBEDDING__MODEL: 'some-embed',
      SM_CONFIG__EMBEDDING__DIMENSIONS: '8',
    });
    expect(checks.pgvector).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/reranked in JavaScript/),
      hint: expect.stringMatching(/create extension vector/),
    });
  });

  it('PGlite (pglite:<dir>) has pgvector: doctor says vectors are reranked in SQL', async () => {
    const dir = join(temp('pglite'), 'data');
    const { code, checks } = await doctor({ SM_DATABASE_URL: `pglite:${dir}` });
    expect(code).toBe(0);
    expect(checks.database?.detail).toMatch(
      new RegExp(`^PostgreSQL \\d+\\.\\d+ at PGlite in ${dir.replaceAll('.', '\\.')}, `),
    );
    expect(checks.pgvector).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^pgvector [\d.]+ present: vectors reranked in SQL; no HNSW index/),
    });
    expect(checks.integrity?.ok).toBe(true);
  });

  it('pglite:<dir> serves one process: another is refused naming the holder (exit 1); a lock left by a dead process is taken over', async () => {
    const dir = join(temp('pglite-lock'), 'data');
    const env = { SM_DATABASE_URL: `pglite:${dir}`, SM_DB: undefined };
    expect((await sm(['stats'], env)).code).toBe(0);
    expect(existsSync(join(dir, 'sm.lock'))).toBe(false);
    const release = lockFolder(dir); // held by this live process, as a running server would
    try {
      const refused = await sm(['stats'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(`^sm: PGlite in .* is open in another process \\(pid ${process.pid}\\)`),
      );
    } finally {
      release();
    }
    writeFileSync(join(dir, 'sm.lock'), String(2 ** 22 + 11)); // a pid no process has: killed with -9
    expect((await sm(['stats'], env)).code).toBe(0);
  });

  it('maintenance optimize merges the GIN indexes pending entries on Postgres', async () => {
    const { code, json } = await sm(['maintenance', 'optimize', '--json'], { SM_DATABASE_URL: url, SM_DB: undefined });
    expect(code).toBe(0);
    expect(json.optimization.indexes).toEqual(['memories_content_search', 'turns_text_search']);
  });

  it('--db names a SQLite file and wins over SM_DATABASE_URL, which is then left untouched', async () => {
    const untouched = await server.createDatabase('untouched');
    const file = join(temp('db'), 'file.db');
    const { code, checks } = await doctor({ SM_DATABASE_URL: untouched }, ['--db', file]);
    expect(code).toBe(0);
    expect(checks.database?.detail).toMatch(new RegExp(`^${file.replaceAll('.', '\\.')}, `));
    expect(checks['sqlite-vec']).toBeDefined();
    expect(await tablesOf(untouched)).toEqual([]);
  });

  it('SM_DB and SM_DATABASE_URL together are refused (exit 2): either could be the one meant', async () => {
    const { code, stdout, stderr } = await sm(['stats'], { SM_DATABASE_URL: url, SM_DB: join(temp('both'), 'x.db') });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'sm: SM_DB and SM_DATABASE_URL are both set: unset one of them (or pass --db PATH to use that SQLite file)\n',
    );
  });

  it('a URL that is not Postgres is bad input (exit 2), said without the rest of the URL', async () => {
    const { code, stderr } = await sm(['stats'], {
      SM_DATABASE_URL: 'mysql://admin:hunter2@db.example/memories',
      SM_DB: undefined,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^sm: SM_DATABASE_URL: expected postgres:\/\/user:password@host:port\/database, pglite: or pglite:<directory>, got a "mysql:" URL/,
    );
    expect(stderr).not.toContain('hunter2');
  });
});

describe('a database out of reach at start', () => {
  const secret = 's3cret-Pa55';
  const unreachable = async () => `postgres://sm:${secret}@127.0.0.1:${await closedPort()}/memories`;
  const expectClear = (result: { code: number; stderr: string }, port: string) => {
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`cannot reach Postgres at host 127\\.0\\.0\\.1, port ${port}, database "memories": .*ECONNREFUSED`),
    );
    expect(result.stderr).not.toContain(secret);
  };

  it('an embedded command says host, port and database, never the password, and exits 1', async () => {
    const target = await unreachable();
    const port = new URL(target).port;
    const result = await sm(['stats'], { SM_DATABASE_URL: target, SM_DB: undefined });
    expectClear(result, port);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^sm: cannot reach Postgres/);
  });

  it('sm serve and sm mcp do the same', async () => {
    const target = await unreachable();
    const port = new URL(target).port;
    expectClear(await sm(['serve', '--port', '0'], { SM_DATABASE_URL: target, SM_DB: undefined }), port);
    expectClear(await sm(['mcp'], { SM_DATABASE_URL: target, SM_DB: undefined }), port);
  });

  it('npm start does the same', async () => {
    const target = await unreachable();
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'server/main.ts')], {
      env: { ...process.env, SM_DATABASE_URL: target, SM_DB: '', SM_PORT: '0', SM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Its log is JSON lines; the fatal one carries the message.
    const fatal = output
      .split('\n')
      .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { level: number; msg: string }] : []))
      .find((entry) => entry.level === 60);
    expectClear({ code: code ?? -1, stderr: fatal?.msg ?? output }, new URL(target).port);
    expect(output).not.toContain(secret);
  });
});
