// Faults an independent hostile-input run found in configuration, tokens and the CLI, each
// refused now with a clear message and nothing changed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { setConfigValue, unsetConfigValue } from '../../server/services/config-admin.ts';
import { remember } from '../../server/core/memory/memories.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { buildApp } from '../../server/http/app.ts';
import { startServer } from '../helpers/api-server.ts';
import { sm } from '../helpers/sm-cli.ts';
import { smServe } from '../helpers/sm-serve.ts';
import { testStore } from '../helpers/store.ts';

describe("configuration keys are the config's own, never the object prototype's", () => {
  it('unsetConfig and setConfig refuse constructor, toString, __proto__', async () => {
    const { store } = await testStore();
    for (const key of ['constructor', 'toString', 'scoring.constructor', 'hasOwnProperty']) {
      await expect(unsetConfigValue(store, key), key).rejects.toThrow(
        expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      );
      await expect(setConfigValue(store, key, 1), key).rejects.toThrow(
        expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      );
    }
    await expect(setConfigValue(store, '__proto__.polluted', 1)).rejects.toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT' }),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await closeStore(store);
  });

  it('sm config get answers only real keys', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
    for (const key of ['__proto__', 'constructor', 'scoring.toString']) {
      const result = await sm(['--db', db, 'config', 'get', key]);
      expect(result.code, key).toBe(2);
      expect(result.stderr).toMatch(/unknown config key/);
    }
    expect((await sm(['--db', db, 'config', 'get', 'gc.mode'])).stdout.trim()).toBe('archive');
  });

  it('negative score weights and a clock before 1970 are refused', async () => {
    const { store } = await testStore();
    await expect(setConfigValue(store, 'scoring.w_freq', -1)).rejects.toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', message: expect.stringMatching(/^scoring\.w_freq/) }),
    );
    await closeStore(store);
    const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
    const early = await sm(['--db', db, 'stats'], { SM_NOW: '-5' });
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/^sm: SM_NOW: /);
  });
});

describe('the admin token', () => {
  it('must be at least 16 characters without spaces: a blank or short one is refused at start', async () => {
    const store = await openStore({ path: ':memory:', env: {} });
    const logger = pino({ level: 'silent' });
    for (const token of ['   ', ' '.repeat(20), 'short-token', 'has a space in it ok', ' padded-token-123456 ']) {
      expect(() => buildApp({ store, host: '127.0.0.1', port: 0, token, logger }), JSON.stringify(token)).toThrow(
        /SM_API_TOKEN must be at least 16/,
      );
    }
    expect(() =>
      buildApp({ store, host: '127.0.0.1', port: 0, token: 'a-good-token-0123456789', logger }),
    ).not.toThrow();
    await closeStore(store);
  });
});

describe('the CLI and its pipes', () => {
  const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));

  it('export --out into a missing folder is a usage error naming --out, without a stack trace', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
    const result = await sm(['--db', db, 'export', '--out', '/no/such/dir/x.jsonl']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('sm: --out: cannot write /no/such/dir/x.jsonl (no such directory)\n');
  });

  it('a reader that goes away (sm export | head -1) ends the command quietly', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
    // Megabytes of export, far more than a pipe holds: the writes after the reader left fail (EPIPE).
    const store = await openStore({ path: db, env: {} });
    for (let i = 0; i < 2000; i++)
      await remember(store, DEFAULT_SPACE, { content: `a fact worth exporting, number ${i} ${'x'.repeat(1000)}` });
    await closeStore(store);
    const child = spawn(process.execPath, [SM, '--db', db, 'export'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // Like `head -1`: read the first chunk, then close the pipe.
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('a busy port', () => {
  it('is one line naming the port and how to pick another, exit 1, no stack trace', async () => {
    const first = await startServer();
    try {
      const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
      const result = await sm(['--db', db, 'serve', '--port', String(first.port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `sm: port ${first.port} on 127.0.0.1 is already in use: stop what listens there, or pick another port with --port or SM_PORT\n`,
      );
    } finally {
      await first.close();
    }
  });
});

describe('shutdown with the log pipe gone', () => {
  it('sm serve whose log reader went away (2>&1 | head -2) still stops on SIGTERM within 5 s and closes the database', async () => {
    const SM = fileURLToPath(new URL('../../bin/sm.js', import.meta.url));
    const db = join(mkdtempSync(join(tmpdir(), 'sm-hard-')), 'm.db');
    const child = spawn(process.execPath, [SM, '--db', db, 'serve', '--port', '0'], {
      env: { ...process.env, SM_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let seen = '';
    const url = await new Promise<string>((resolve) =>
      child.stderr.on('data', (chunk) => {
        seen += chunk;
        const match = seen.match(/on (http:\/\/\S+\/graphql)/);
        if (match) resolve(match[1]!);
      }),
    );
    // Like `head -2`: the reader leaves, and every log line after this one meets a closed pipe.
    child.stderr.destroy();
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ nope }' }),
    });
    const started = Date.now();
    child.kill('SIGTERM');
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', resolve)),
      new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 8000)),
    ]);
    if (code === 'still running') child.kill('SIGKILL');
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});

describe('CLI exit codes and messages are the same embedded and with --url', () => {
  it('bad input exits 2 and names the flag the user typed, in both modes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-hard-'));
    const served = await smServe(join(dir, 'served.db'), ['--no-scheduler']);
    try {
      for (const mode of [
        ['--db', join(dir, 'local.db')],
        ['--url', served.url],
      ]) {
        for (const [args, message] of [
          [['remember', '--text', 'x', '--importance', '5'], /^sm: --importance: /],
          [['add-turn', '--session', 's', '--role', 'user', '--text', '   '], /^sm: --text: must not be empty/],
          [['get-context', '--session', ''], /^sm: --session: /],
          [['confirm', '--id', '999999'], /^sm: memory 999999 not found/],
        ] as const) {
          const result = await sm([...mode, ...args]);
          expect(result.code, `${mode[0]} ${args.join(' ')}`).toBe(message.source.includes('not found') ? 1 : 2);
          expect(result.stderr, `${mode[0]} ${args.join(' ')}`).toMatch(message);
        }
      }
    } finally {
      await served.stop();
    }
  });
});
