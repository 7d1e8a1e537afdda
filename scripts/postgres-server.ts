// A throwaway Postgres server for tests and benchmarks (test/helpers/postgres-server.ts re-exports it), from Debian's postgresql package: initdb and pg_ctl in a
// temporary folder, on a free loopback port, trust authentication for the role `sm`. As root the
// binaries run as the `postgres` user (initdb refuses root). Missing binaries fail the test with
// how to get them (.ci/run installs them), so a Postgres check is never silently skipped.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type PostgresServer = {
  /** The `postgres` database of the server (for administration). */
  url: string;
  port: number;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Shuts the server down as an operator would (`pg_ctl stop -m fast`: sessions are ended), keeping its data. */
  halt(): void;
  /** Starts it again on the same port and data (halting it first if it runs): a database that went away and came back. */
  restart(): void;
  stop(): void;
};

const ROLE = 'sm';

/** The newest installed version's bin folder (/usr/lib/postgresql/15/bin). */
export function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin/initdb'))) : [];
  if (versions.length === 0) {
    throw new Error(
      'the Postgres server binaries are missing (no /usr/lib/postgresql/*/bin/initdb): install them with `apt-get install -y postgresql` (.ci/run does)',
    );
  }
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as the `postgres` user when this process is root. */
function runAsServerUser(bin: string, args: string[]) {
  const root = process.getuid?.() === 0;
  const [command, commandArgs] = root ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'sm-postgres-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  // No fsync: a test server's data may be lost in a crash; it is thrown away anyway.
  runAsServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    ROLE,
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () =>
    runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', 'start']);
  start();
  let running = true;
  const halt = () => {
    if (!running) return;
    runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    running = false;
  };

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      if (running) runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // A test run that ends without stopping it (a failed hook, an interrupt) leaves no server behind.
  process.on('exit', stop);

  const url = `postgres://${ROLE}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase: async (name) => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`create database "${name}"`);
      } finally {
        await admin.end();
      }
      return `postgres://${ROLE}@127.0.0.1:${port}/${name}`;
    },
    halt,
    restart: () => {
      halt();
      start();
      running = true;
    },
    stop,
  };
}
