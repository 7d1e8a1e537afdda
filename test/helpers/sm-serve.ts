// `sm serve` as a child process on a database file (or, with `db` null, on what the environment
// names: SM_DATABASE_URL, SM_DB); resolves with its GraphQL URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));

export async function smServe(db: string | null, args: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [SM, ...(db === null ? [] : ['--db', db]), 'serve', '--port', '0', ...args], {
    env: { ...process.env, SM_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sm serve did not start: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const match = stderr.match(/on (http:\/\/\S+\/graphql)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`sm serve exited (${code}): ${stderr}`)));
  });
  return {
    url,
    /** The server's process id (a job it claims names it: `host:pid`). */
    pid: child.pid!,
    /** Ends it without letting it finish anything (`kill -9`); resolves once it is gone. */
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
