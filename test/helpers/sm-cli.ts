// Runs the real `sm` executable in a child process, as a user would.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));

export type SmResult = { code: number; stdout: string; stderr: string; json: any };

/** `sm ARGS` with `env` over this process's environment (an undefined value unsets a variable), in `cwd` when given. */
export function sm(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): Promise<SmResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SM, ...args],
      { env: { ...process.env, SM_LOG_LEVEL: 'warn', ...env }, cwd },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}
