// The host: health, GraphiQL, graceful shutdown, and `npm start` as a process.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { getIntrospectionQuery } from 'graphql';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { createClient, Role } from '../../client/src/index.ts';
import { openStore, closeStore } from '../../server/storage/sqlite/open.ts';
import { firstEvent, startServer } from '../helpers/api-server.ts';

const ROOT = join(import.meta.dirname, '../..');

/** An OpenAI-compatible endpoint that answers every chat completion after `delayMs`. */
async function slowLlm(delayMs: number, content: string) {
  let calledResolve: () => void;
  const called = new Promise<void>((resolve) => (calledResolve = resolve));
  const server = createServer((req, res) => {
    req.resume();
    calledResolve();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        }),
      );
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    called,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('host', () => {
  it('serves /health and GraphiQL at /graphql', async () => {
    const server = await startServer({ token: 'secret-token-a1b2c3d4' });
    try {
      expect((await fetch(`${server.base}/health`)).status).toBe(200);
      const page = await fetch(`${server.base}/graphql`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('Symbiosis Memory');
      // GraphiQL's own introspection query stays within the query limits.
      const query = getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        inputValueDeprecation: true,
      });
      const introspection = await server.graphql(query);
      expect(introspection.body.errors).toBeUndefined();
      expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await server.close();
    }
  });

  it('stop() ends subscriptions and stops accepting connections', async () => {
    const server = await startServer();
    const client = createClient({ url: server.url, webSocketImpl: WebSocket, retryAttempts: 0 });
    const turns = client.turnAdded({ sessionId: 'bye' })[Symbol.asyncIterator]();
    await firstEvent(turns, (i) =>
      client.addTurn({ input: { sessionId: 'bye', role: Role.User, text: `t${i}`, autoExtract: false } }),
    );
    const ended = turns.next().then(
      (r) => ({ done: r.done }),
      (e: { code?: number }) => ({ code: e.code }),
    );
    await server.app.stop();
    expect(await ended).toEqual({ code: 1001 });
    await expect(fetch(`${server.base}/health`)).rejects.toThrow();
    await client.dispose();
    await server.close();
  });

  it('stop() lets an in-flight write finish (llm mode waiting on the LLM)', async () => {
    const llm = await slowLlm(400, JSON.stringify([{ action: 'create', content: 'User loves hiking' }]));
    const server = await startServer({
      config: { extractor: { mode: 'llm' }, llm: { endpoint: llm.url, model: 'test-model', timeout_s: 5 } },
    });
    try {
      const pending = server.client().addTurn({ input: { sessionId: 'slow', role: Role.User, text: 'I love hiking' } });
      await llm.called;
      const started = Date.now();
      const stopped = server.app.stop();
      const { addTurn } = await pending;
      await stopped;
      expect(Date.now() - started).toBeLessThan(2000); // no wait for the grace period
      expect(addTurn.extracted.map((e) => [e.action, e.memory.content, e.rule])).toEqual([
        ['CREATED', 'User loves hiking', 'llm'],
      ]);
      expect(server.store.sqlite.prepare('select content from memories').all()).toEqual([
        { content: 'User loves hiking' },
      ]);
    } finally {
      await server.close();
      await llm.close();
    }
  });

  it('npm start listens on SM_PORT with SM_DB, and shuts down cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-start-'));
    const db = join(dir, 'memory.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, SM_DB: db, SM_PORT: '0', SM_LOG_LEVEL: 'info', SM_API_TOKEN: 'tok-123-e4f5a6b7c8' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const logs: Record<string, unknown>[] = [];
    const lines = createInterface({ input: child.stderr });
    const listening = new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'listening') resolve(entry.url as string);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const url = await listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const client = createClient({ url, token: 'tok-123-e4f5a6b7c8', webSocketImpl: WebSocket });
    const { addTurn } = await client.addTurn({ input: { sessionId: 'proc', role: Role.User, text: 'I love hiking' } });
    expect(addTurn.turn.id).toBe(1);

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    // The token never reaches a log line.
    expect(JSON.stringify(logs)).not.toContain('tok-123-e4f5a6b7c8');

    const store = await openStore({ path: db, env: {} });
    try {
      expect(store.sqlite.prepare('select text from turns').all()).toEqual([{ text: 'I love hiking' }]);
    } finally {
      await closeStore(store);
    }
  });
});
