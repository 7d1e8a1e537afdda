// `sm serve` as a child process, for tests (test/helpers/sm-serve.ts) and benchmarks
// (bench/load-server.ts): on a database file, or with `db` null on what the environment names
// (SM_DATABASE_URL, SM_DB), on port 0; resolves with its GraphQL URL once it prints it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SM = fileURLToPath(new URL('../bin/sm.js', import.meta.url));

export type SmServeOptions = {
  db: string | null;
  /** After `serve --port 0`. */
  args?: string[];
  env?: Record<string, string>;
  /** Before bin/sm.js (node flags such as --max-semi-space-size). */
  nodeArgs?: string[];
  /** How long it may take to print its URL. */
  startTimeoutMs?: number;
};

export type SmServe = {
  url: string;
  /** The server's process id (a job it claims names it: `host:pid`). */
  pid: number;
  /** Ends it without letting it finish anything (`kill -9`); resolves once it is gone. */
  kill(): Promise<void>;
  /** Ends it as an operator would (SIGTERM); resolves once it is gone. */
  stop(): Promise<void>;
};

export async function startSmServe(options: SmServeOptions): Promise<SmServe> {
  const { db, args = [], env = {}, nodeArgs = [], startTimeoutMs = 60_000 } = options;
  const child = spawn(
    process.execPath,
    [...nodeArgs, SM, ...(db === null ? [] : ['--db', db]), 'serve', '--port', '0', ...args],
    { env: { ...process.env, SM_LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sm serve did not start: ${stderr}`)), startTimeoutMs);
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const match = /on (http:\/\/\S+\/graphql)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`sm serve exited (${code}): ${stderr}`)));
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return { url, pid: child.pid!, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
