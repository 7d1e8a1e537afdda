// Every error the API answers carries extensions.code, and malformed requests are the client's
// errors (4xx), not the server's: faults found by an independent hostile-input run.
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WS_MESSAGE_BYTES } from '../../server/http/ws.ts';
import { ERROR_CODES } from '../../server/http/error-codes.ts';
import { ARMOR } from '../../server/http/yoga.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

describe('error codes', () => {
  let server: TestServer;
  beforeAll(async () => (server = await startServer()));
  afterAll(() => server.close());
  const codes = (body: { errors?: { extensions?: { code?: string } }[] }) =>
    (body.errors ?? []).map((e) => e.extensions?.code);

  it('GET with malformed variables or extensions is 400 BAD_USER_INPUT, not 500', async () => {
    for (const [key, value] of [
      ['variables', '{bad'],
      ['variables', '5'],
      ['variables', '[1]'],
      ['extensions', '{"x":'],
    ] as const) {
      const response = await fetch(
        `${server.base}/graphql?query=${encodeURIComponent('{ stats { turns } }')}&${key}=${encodeURIComponent(value)}`,
      );
      expect(response.status, `${key}=${value}`).toBe(400);
      const body = (await response.json()) as any;
      expect(codes(body)).toEqual(['BAD_USER_INPUT']);
      expect(body.errors[0].message).toMatch(new RegExp(`^${key}: `));
    }
    const fine = await fetch(
      `${server.base}/graphql?query=${encodeURIComponent('query($id: Int!) { memory(id: $id) { id } }')}&variables=${encodeURIComponent('{"id":1}')}`,
    );
    expect(fine.status).toBe(200);
  });

  it('variable coercion, validation, parse and query-limit errors all carry a documented code', async () => {
    const cases: [string, Record<string, unknown> | undefined, string][] = [
      ['query($n: Int!) { memory(id: $n) { id } }', { n: 'x' }, 'BAD_USER_INPUT'],
      ['query($n: Int!) { memory(id: $n) { id } }', {}, 'BAD_USER_INPUT'],
      ['{ nope }', undefined, 'GRAPHQL_VALIDATION_FAILED'],
      ['{ stats { ', undefined, 'GRAPHQL_PARSE_FAILED'],
      [
        '{ memories(first: 100) { edges { node { sources { turn { entities { memories(first: 100) { edges { node { id } } } } } } } } } }',
        undefined,
        'QUERY_TOO_COMPLEX',
      ],
    ];
    for (const [query, variables, code] of cases) {
      const { body } = await server.graphql(query, variables);
      expect(codes(body), query).toContain(code);
      expect(
        codes(body).every((c) => typeof c === 'string' && c in ERROR_CODES),
        JSON.stringify(body),
      ).toBe(true);
    }
  });

  it('aliased __typename counts toward the alias limit', async () => {
    const many = Array.from({ length: ARMOR.maxAliases.n + 1 }, (_, i) => `a${i}: __typename`).join(' ');
    const { body } = await server.graphql(`{ ${many} }`);
    expect(body.data).toBeUndefined();
    expect(codes(body)).toContain('QUERY_TOO_COMPLEX');
    const enough = Array.from({ length: ARMOR.maxAliases.n }, (_, i) => `a${i}: __typename`).join(' ');
    expect((await server.graphql(`{ ${enough} }`)).body.data.a0).toBe('Query');
  });

  it('a list literal nested thousands deep is QUERY_TOO_COMPLEX over HTTP (was a 500: stack overflow)', async () => {
    const deep = `{ search(query: "x", tags: ${'['.repeat(3000)}"a"${']'.repeat(3000)}) { id } }`;
    const response = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: deep }),
    });
    expect(response.status).toBeLessThan(500);
    expect(codes((await response.json()) as any)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('over WebSocket a rejected operation is an error for that operation only: the socket stays open', async () => {
    // Not lazy: one socket for the whole test, which must survive every rejected operation.
    const ws = createWsClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
    });
    let closed: unknown = null;
    ws.on('closed', (event) => (closed = event));
    const run = (query: string, variables?: Record<string, unknown>) =>
      new Promise<{ data?: unknown; errors?: readonly { extensions?: { code?: string } }[] }>((resolve) => {
        const results: unknown[] = [];
        ws.subscribe(
          { query, variables },
          {
            next: (r) => results.push(r),
            error: (e) => resolve({ errors: e as never }),
            complete: () => resolve(results[0] as never),
          },
        );
      });
    const many = Array.from({ length: ARMOR.maxAliases.n + 1 }, (_, i) => `a${i}: __typename`).join(' ');
    for (const [query, variables, code] of [
      [
        `{ search(query: "x", tags: ${'['.repeat(3000)}"a"${']'.repeat(3000)}) { id } }`,
        undefined,
        'QUERY_TOO_COMPLEX',
      ],
      [
        '{ memories(first: 100) { edges { node { sources { turn { entities { memories(first: 100) { edges { node { id } } } } } } } } } }',
        undefined,
        'QUERY_TOO_COMPLEX',
      ],
      [`{ ${many} }`, undefined, 'QUERY_TOO_COMPLEX'],
      ['query($n: Int!) { memory(id: $n) { id } }', { n: 'x' }, 'BAD_USER_INPUT'],
      ['{ nope }', undefined, 'GRAPHQL_VALIDATION_FAILED'],
    ] as const) {
      const result = await run(query, variables);
      expect(codes(result as never), query.slice(0, 60)).toContain(code);
    }
    expect(((await run('{ stats { turns } }')) as any).data.stats.turns).toBe(0);
    expect(closed).toBeNull();
    await ws.dispose();
  });

  it('a WebSocket message over the limit closes that socket before it is parsed, token or not', async () => {
    const socket = new WebSocket(server.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const code = new Promise<number>((resolve) => socket.once('close', (c) => resolve(c)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { token: 'x'.repeat(MAX_WS_MESSAGE_BYTES + 10) } }));
    expect(await code).toBe(1009);
  });
});
