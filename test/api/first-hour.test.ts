// A new user's first hour, as they would live it: `sm` by name after `npm link`, one default
// database whatever folder they are in (shared by the CLI and the server), a banner when the
// service starts in a terminal, and output that reads right.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sm } from '../helpers/sm-cli.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const temp = (name: string) => mkdtempSync(join(tmpdir(), `sm-first-${name}-`));
/** An environment with a data folder of its own and no database named: the default applies. */
const fresh = (): Record<string, string | undefined> => ({
  ...process.env,
  XDG_DATA_HOME: temp('data'),
  SM_LOG_LEVEL: 'error',
  SM_DB: undefined,
});
/** `sm` in a given working folder. */
const smIn = (cwd: string, env: Record<string, string | undefined>, ...args: string[]) => sm(args, env, cwd);

describe('sm by name', () => {
  it('npm link puts sm on the PATH, and it answers from any folder', { timeout: 60_000 }, async () => {
    const prefix = temp('prefix');
    // A prefix of the test's own instead of the machine's global folder; the same command a user runs.
    await run('npm', ['link', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: ROOT,
      env: { ...process.env, npm_config_prefix: prefix },
    });
    const bin = join(prefix, 'bin');
    expect(readdirSync(bin)).toContain('sm');
    const env = { ...fresh(), PATH: `${bin}:${process.env.PATH}` };
    const version = await run('sm', ['--version'], { cwd: temp('elsewhere'), env });
    expect(version.stdout.trim()).toBe(VERSION);
  });
});

describe('one default database', () => {
  it('lives in the user data folder whatever the working folder, is announced once, and doctor names it', {
    timeout: 60_000,
  }, async () => {
    const env = fresh();
    const path = join(env.XDG_DATA_HOME!, 'symbiosis-memory', 'symbiosis.db');
    const here = temp('cwd-a');
    const first = await smIn(here, env, 'remember', '--text', 'User lives in Porto');
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`sm: created a new database at ${path} (--db or SM_DB picks another)\n`);
    expect(existsSync(path)).toBe(true);
    expect(readdirSync(here)).toEqual([]); // nothing scattered in the working folder

    const elsewhere = await smIn(temp('cwd-b'), env, 'search', 'Porto', '--json');
    expect(elsewhere.stderr).toBe(''); // said once, when it was made
    expect(JSON.parse(elsewhere.stdout).map((h: { text: string }) => h.text)).toContain('User lives in Porto');

    const doctor = JSON.parse((await smIn(here, env, 'doctor', '--json')).stdout) as { name: string; detail: string }[];
    expect(doctor.find((c) => c.name === 'database')?.detail).toMatch(
      new RegExp(`^${path.replaceAll('.', '\\.')}, \\d+\\.\\d MB \\(the default location\\)$`),
    );
  });

  it('is the one npm start serves', { timeout: 60_000 }, async () => {
    const env = fresh();
    await smIn(temp('cwd'), env, 'remember', '--text', 'User plays the cello');
    const server = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'server/main.ts')],
      {
        cwd: temp('server-cwd'),
        env: { ...env, SM_PORT: '0', SM_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const listening = await new Promise<{ url: string; database: string }>((resolve, reject) => {
        let err = '';
        server.stderr!.on('data', (chunk) => {
          err += chunk;
          for (const line of err.split('\n')) {
            if (line.includes('"listening"')) resolve(JSON.parse(line));
          }
        });
        server.once('exit', (code) => reject(new Error(`npm start exited ${code}: ${err}`)));
      });
      expect(listening.database).toBe(join(env.XDG_DATA_HOME!, 'symbiosis-memory', 'symbiosis.db'));
      const response = await fetch(listening.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ search(query: "cello") { text } }' }),
      });
      const body = (await response.json()) as { data: { search: { text: string }[] } };
      expect(body.data.search.map((h) => h.text)).toContain('User plays the cello');
    } finally {
      server.kill('SIGTERM');
    }
  });
});

describe('starting the service', () => {
  it('prints a banner on a terminal: where it answers, which file, auth, models', { timeout: 60_000 }, async () => {
    const env = fresh();
    const db = join(temp('db'), 'memory.db');
    // `script` gives the command a terminal, as a person at a shell has.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/sm.js'))} --db ${JSON.stringify(db)} serve --port 0`;
    const screen = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...env, SM_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Ctrl-C')) child.kill('SIGTERM');
      });
      child.once('exit', () => resolve(out.replace(/\r/g, '')));
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    });
    expect(screen).toContain(`Symbiosis Memory ${VERSION}`);
    expect(screen).toMatch(/GraphQL +http:\/\/127\.0\.0\.1:\d+\/graphql/);
    expect(screen).toMatch(/MCP +http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(screen).toContain(`Database    ${db} (new)`);
    expect(screen).toContain('Auth        none on loopback (set SM_API_TOKEN to require a token)');
    expect(screen).toMatch(/LLM +none: heuristic extraction/);
    expect(screen).toMatch(/Embeddings +none: keyword and entity search/);
  });

  it('prints no banner to a pipe: scripts and supervisors read one line on stderr and JSON logs', {
    timeout: 60_000,
  }, async () => {
    const db = join(temp('db'), 'memory.db');
    const child = spawn(process.execPath, [join(ROOT, 'bin/sm.js'), '--db', db, 'serve', '--port', '0'], {
      env: { ...fresh(), SM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk) => {
        err += chunk;
        if (err.includes('Symbiosis Memory on')) resolve();
      });
    });
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(out).toBe('');
    const logs = err.split('\n').filter((line) => line.startsWith('{'));
    expect(logs.map((line) => JSON.parse(line).msg)).toContain('listening');
    expect(err).toContain(`, database ${db}\n`);
  });
});

describe('human output', () => {
  it('counts with the right plural and leaves out empty sections', { timeout: 60_000 }, async () => {
    const db = join(temp('db'), 'memory.db');
    const empty = await sm(['--db', db, 'get-context', '--session', 'nothing-yet']);
    expect(empty.stdout).toBe('(no memories yet)\n');
    await sm(['--db', db, 'add-turn', '--session', 's1', '--role', 'user', '--text', 'I play the cello']);
    const one = await sm(['--db', db, 'get-context', '--session', 's1']);
    expect(one.stdout).toMatch(/^## Short-term \(1 turn\)\nuser: I play the cello\n/);
    await sm(['--db', db, 'remember', '--text', 'User plays the cello']);
    const session = await sm(['--db', db, 'session', 's1']);
    expect(session.stdout).toMatch(/^session s1: 1 turn,/);
    const forgot = await sm(['--db', db, 'forget', '--text', 'cello']);
    expect(forgot.stdout).toBe('forgot 1 memory and 1 turn\n');
  });

  it('import counts the records of the file, not the empty line after the last one', { timeout: 60_000 }, async () => {
    const dir = temp('import');
    const source = join(dir, 'a.db');
    await sm(['--db', source, 'remember', '--text', 'User likes tea']);
    const file = join(dir, 'export.jsonl');
    await sm(['--db', source, 'export', '--out', file]);
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim()).length;
    const imported = await sm(['--db', join(dir, 'b.db'), 'import', file]);
    expect(imported.stdout).toMatch(new RegExp(`^imported ${records} lines: `));
    writeFileSync(join(dir, 'one.jsonl'), `${readFileSync(file, 'utf8').split('\n')[0]}\n`);
    expect((await sm(['--db', join(dir, 'c.db'), 'import', join(dir, 'one.jsonl')])).stdout).toMatch(
      /^imported 1 line: /,
    );
  });
});
