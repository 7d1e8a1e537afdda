// A real listening server for API tests: a temp-file database, port 0, the typed client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import WebSocket from 'ws';
import { expect } from 'vitest';
import { createClient, SymbiosisClientError, type SymbiosisClient } from '../../client/src/index.ts';
import type { Clock } from '../../server/core/kernel/clock.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { buildApp } from '../../server/http/app.ts';
import { createRuntime } from '../../server/services/runtime.ts';

export type TestServer = Awaited<ReturnType<typeof startServer>>;

export async function startServer(
  options: {
    token?: string;
    host?: string;
    config?: Record<string, unknown>;
    clock?: Clock;
    jobs?: boolean;
    readWorkers?: number;
    loneReadsToWorkers?: boolean;
    path?: string;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-api-'));
  const store = await openStore({
    path: options.path ?? join(dir, 'test.db'),
    env: {},
    clock: options.clock,
    config: options.config,
  });
  const runtime = await createRuntime(store);
  const app = buildApp({
    store,
    runtime,
    // Read workers only where a test asks: each costs a thread that compiles the search code.
    readWorkers: options.readWorkers ?? 0,
    loneReadsToWorkers: options.loneReadsToWorkers,
    host: options.host ?? '127.0.0.1',
    port: 0,
    token: options.token,
    // The job worker polls the db in the background; API tests that need it opt in.
    jobs: options.jobs ?? false,
    logger: pino({ level: 'silent' }),
  });
  const { url, port } = await app.start();
  const base = `http://127.0.0.1:${port}`;
  const clients: SymbiosisClient[] = [];
  /** The typed client; pass `null` for one without a token. */
  const client = (token: string | null = options.token ?? null) => {
    const c = createClient({ url: `${base}/graphql`, token: token ?? undefined, webSocketImpl: WebSocket });
    clients.push(c);
    return c;
  };
  return {
    store,
    runtime,
    app,
    url,
    port,
    base,
    client,
    /** Raw GraphQL over HTTP, for what the typed client cannot send (limits, malformed input). */
    async graphql(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...headers,
        },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } };
    },
    async close() {
      await Promise.all(clients.map((c) => c.dispose()));
      await app.stop();
      await closeStore(store);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The first value of a subscription iterator, calling `trigger` until one arrives: the server
 * starts listening a moment after the client subscribes, and nothing tells the client when.
 */
export async function firstEvent<T>(
  iterator: AsyncIterator<T>,
  trigger: (attempt: number) => Promise<unknown>,
  timeoutMs = 10_000,
): Promise<T> {
  const next = iterator.next();
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    await trigger(attempt);
    const result = await Promise.race([next, new Promise<null>((resolve) => setTimeout(() => resolve(null), 150))]);
    if (result) {
      if (result.done) throw new Error('subscription ended without an event');
      return result.value;
    }
  }
  throw new Error('no event before the timeout');
}

/** Stats without what moves with the clock alone (the job lag), to compare counts before and after. */
export function countsOf<S extends { jobs: { lagSeconds: number; byType: { lagSeconds: number }[] } }>(stats: S): S {
  return {
    ...stats,
    jobs: { ...stats.jobs, lagSeconds: 0, byType: stats.jobs.byType.map((t) => ({ ...t, lagSeconds: 0 })) },
  };
}

/** The typed client's error of a request that must fail (fails the test if it succeeds). */
export async function failure(promise: Promise<unknown>): Promise<SymbiosisClientError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SymbiosisClientError);
  return error as SymbiosisClientError;
}
