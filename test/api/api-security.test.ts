// Access and limits: tokens over HTTP and WebSocket, loopback binding, browser origins,
// graphql-armor query limits and the request body size limit.
import { request } from 'node:http';
import WebSocket from 'ws';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MemoryAction, SymbiosisClientError } from '../../client/src/index.ts';
import { openStore, closeStore } from '../../server/storage/sqlite/open.ts';
import { buildApp } from '../../server/http/app.ts';
import { ARMOR, MAX_BODY_BYTES } from '../../server/http/yoga.ts';
import { firstEvent, startServer, type TestServer } from '../helpers/api-server.ts';

const TOKEN = 'test-token-8f3a-4c2e91';

function rawRequest(port: number, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('with a token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ token: TOKEN });
  });
  afterAll(() => server.close());

  it('HTTP refuses a missing or wrong token and accepts the right one', async () => {
    for (const token of [null, 'wrong']) {
      const error = await server
        .client(token)
        .stats()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SymbiosisClientError);
      expect(error).toMatchObject({ status: 401, code: 'AUTH', serverCode: 'UNAUTHENTICATED' });
    }
    expect((await server.client(TOKEN).stats()).stats.memories.total).toBe(0);
  });

  it('REST needs the token too; /health does not', async () => {
    const refused = await fetch(`${server.base}/memories`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toEqual({
      error: { code: 'UNAUTHENTICATED', message: expect.stringContaining('Bearer') },
    });
    const accepted = await fetch(`${server.base}/memories`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(accepted.status).toBe(200);
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
  });

  it('WebSocket refuses connection_init without the right token', async () => {
    for (const token of [null, 'wrong']) {
      const events = server.client(token).memoryEvents()[Symbol.asyncIterator]();
      const error = await events.next().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 4403, reason: 'Forbidden' });
    }
  });

  it('WebSocket accepts { token } and { authorization: "Bearer …" } in connection_init', async () => {
    const client = server.client(TOKEN);
    const events = client.memoryEvents({ actions: [MemoryAction.Created] })[Symbol.asyncIterator]();
    const event = await firstEvent(events, (i) => client.remember({ input: { content: `Authorised fact ${i}` } }));
    expect(event.memoryEvents.action).toBe('CREATED');
    await events.return?.();

    const { createClient: createWsClient } = await import('graphql-ws');
    const ws = createWsClient({
      url: `ws://127.0.0.1:${server.port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${TOKEN}` },
    });
    const result = await ws.iterate({ query: '{ stats { turns } }' }).next();
    expect(result.value).toEqual({ data: { stats: { turns: 0 } } });
    await ws.dispose();
  });
});

describe('binding', () => {
  it('refuses a non-loopback host without a token, accepts it with one', async () => {
    const store = await openStore({ path: ':memory:', env: {} });
    try {
      const logger = pino({ level: 'silent' });
      expect(() => buildApp({ store, host: '0.0.0.0', port: 0, logger })).toThrow(
        /Refusing to listen on 0\.0\.0\.0 without a token/,
      );
      expect(() => buildApp({ store, host: '192.168.1.20', port: 0, token: '', logger })).toThrow(/SM_API_TOKEN/);
      const app = buildApp({ store, host: '0.0.0.0', port: 0, token: TOKEN, logger, jobs: false });
      const { port } = await app.start();
      const client = createClient({ url: `http://127.0.0.1:${port}/graphql`, token: TOKEN });
      expect((await client.stats()).stats.sessions).toBe(0);
      await app.stop();
    } finally {
      await closeStore(store);
    }
  });
});

describe('without a token (loopback)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('refuses web pages of other origins and non-loopback Host names', async () => {
    // node:http, because fetch does not let a caller set Origin or Host.
    const query = JSON.stringify({ query: '{ stats { turns } }' });
    const crossSite = await rawRequest(server.port, '/graphql', { origin: 'https://evil.example' }, query);
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await rawRequest(server.port, '/graphql', { origin: server.base }, query)).status).toBe(200);
    expect((await rawRequest(server.port, '/memories', { host: 'attacker.example:80' })).status).toBe(403);
    expect((await rawRequest(server.port, '/memories', { host: `localhost:${server.port}` })).status).toBe(200);

    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/graphql`, 'graphql-transport-ws', {
      origin: 'https://evil.example',
    });
    const status = await new Promise((resolve) =>
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode)),
    );
    expect(status).toBe(403);
  });

  it('limits depth, aliases, tokens and cost', async () => {
    const nest = (n: number): string => (n === 0 ? 'id' : `supersedes { ${nest(n - 1)} }`);
    const deep = await server.graphql(`{ memories { edges { node { ${nest(ARMOR.maxDepth.n)} } } } }`);
    expect(deep.body.errors?.[0].message).toMatch(/Query depth limit of 12 exceeded/);

    const aliases = Array.from({ length: ARMOR.maxAliases.n + 1 }, (_, i) => `a${i}: stats { turns }`).join(' ');
    expect((await server.graphql(`{ ${aliases} }`)).body.errors?.[0].message).toMatch(/Aliases limit of 15 exceeded/);

    const tokens = `{ stats { ${'turns '.repeat(ARMOR.maxTokens.n)} } }`;
    expect((await server.graphql(tokens)).body.errors?.[0].message).toMatch(/Token limit of 2000 exceeded/);

    const wide = 'rules score hits ageDays confidence decayRate accessCount protected';
    const costly = `{ memories(first: 100) { edges { node { why { supersedes { why { supersedes { why { ${wide} } } } } } } } } }`;
    expect((await server.graphql(costly)).body.errors?.[0].message).toMatch(/Query Cost limit of 20000 exceeded/);

    // Field suggestions would let a caller map a schema it cannot introspect.
    const typo = await server.graphql('{ stats { turn } }');
    expect(typo.body.errors?.[0].message).not.toMatch(/Did you mean/);

    // What the typed client sends stays within the limits.
    const nested = await server.graphql(
      '{ memories(first: 100) { edges { node { id content sources { turn { text entities { name } } } } } } }',
    );
    expect(nested.body.errors).toBeUndefined();
  });

  it('refuses request bodies over the size limit', async () => {
    const padding = 'x'.repeat(MAX_BODY_BYTES + 1);
    const graphql = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ stats { turns } }', variables: { padding } }),
    });
    expect(graphql.status).toBe(413);
    expect((await graphql.json()).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    const rest = await fetch(`${server.base}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's', role: 'user', text: padding }),
    });
    expect(rest.status).toBe(413);
    expect((await server.client().stats()).stats.turns).toBe(0);
  });

  it('counts a body sent without Content-Length (chunked) as it streams in', async () => {
    const port = Number(new URL(server.base).port);
    const chunked = (parts: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        for (const part of parts) req.write(part);
        req.end();
      });
    const turn = (text: string) =>
      JSON.stringify({
        query:
          'mutation($text: String!) { addTurn(input: { sessionId: "c", role: USER, text: $text }) { turn { id } } }',
        variables: { text },
      });
    const small = turn('I live in Porto');
    const fine = await chunked([small.slice(0, 20), small.slice(20)]);
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.body).data.addTurn.turn.id).toBeGreaterThan(0);
    // Over the limit in pieces none of which is: refused, and nothing of it stored.
    const big = turn('x'.repeat(MAX_BODY_BYTES));
    const pieces = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) =>
      big.slice(i * 65536, (i + 1) * 65536),
    );
    const refused = await chunked(pieces);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await server.client().stats()).stats.turns).toBe(1);
  });
});
