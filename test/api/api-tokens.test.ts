// Scoped access tokens over a real server: created by the admin, shown once, stored hashed,
// reaching one user (read-only when asked), refused at once when revoked over HTTP and WebSocket.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createClient as createWsClient } from 'graphql-ws';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/src/index.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { createToken, hashToken, revokeToken } from '../../server/core/users/tokens.ts';
import { buildApp } from '../../server/http/app.ts';
import { countsOf, failure, firstEvent, startServer, type TestServer } from '../helpers/api-server.ts';

const ADMIN = 'admin-token-7c1e9a40b2d34f58';

describe('scoped tokens (admin token configured)', () => {
  let server: TestServer;
  let aliceToken: string;
  let aliceReadOnly: string;
  beforeAll(async () => {
    server = await startServer({ token: ADMIN });
    const admin = server.client();
    aliceToken = (await admin.createAccessToken({ userId: 'alice', label: 'app' })).createAccessToken.token;
    aliceReadOnly = (await admin.createAccessToken({ userId: 'alice', readOnly: true })).createAccessToken.token;
    await admin.forUser('bob').remember({ input: { content: 'Bob keeps a zebrafish tank' } });
  });
  afterAll(() => server.close());

  it('a user token defaults to its user, and naming another user is FORBIDDEN', async () => {
    const alice = server.client(aliceToken);
    const { remember } = await alice.remember({ input: { content: 'Alice drinks green tea' } });
    expect(remember.memory).toMatchObject({ userId: 'alice', content: 'Alice drinks green tea' });
    expect((await alice.memories({})).memories.edges.map((e) => e.node.content)).toEqual(['Alice drinks green tea']);
    expect((await alice.viewer()).viewer).toEqual({ admin: false, userId: 'alice', agentId: null, readOnly: false });
    expect((await failure(alice.forUser('bob').memories({}))).code).toBe('FORBIDDEN');
    expect((await failure(alice.users({}))).code).toBe('FORBIDDEN');
    expect((await failure(alice.createAccessToken({ userId: 'alice' }))).code).toBe('FORBIDDEN');
    // The admin sees both users; Bob's memory id is NOT_FOUND for Alice, like an id that never existed.
    const bobMemory = (await server.client().forUser('bob').memories({})).memories.edges[0]!.node;
    expect((await alice.memory({ id: bobMemory.id })).memory).toBeNull();
    expect((await failure(alice.confirmMemory({ id: bobMemory.id }))).message).toBe(`memory ${bobMemory.id} not found`);
    expect((await failure(alice.confirmMemory({ id: 987_654 }))).message).toBe('memory 987654 not found');
  });

  it("the admin's forget by text acts in the user it names, and nowhere else", async () => {
    const admin = server.client();
    await admin.remember({ input: { content: 'Default user owns a harpsichord' } });
    await admin.forUser('henry').remember({ input: { content: 'Henry owns a harpsichord' } });
    const { forget } = await admin.forUser('henry').forget({ text: 'harpsichord' });
    expect(forget.memoryIds).toHaveLength(1);
    expect((await admin.forUser('henry').memories({ q: 'harpsichord' })).memories.totalCount).toBe(0);
    expect((await admin.memories({ q: 'harpsichord' })).memories.edges.map((e) => e.node.content)).toEqual([
      'Default user owns a harpsichord',
    ]);
    expect((await failure(admin.forget({}))).code).toBe('BAD_USER_INPUT');
  });

  it('a read-only token reads and cannot write: FORBIDDEN, nothing written', async () => {
    const reader = server.client(aliceReadOnly);
    expect((await reader.memories({})).memories.totalCount).toBeGreaterThan(0);
    const before = countsOf((await server.client().stats({ userId: 'alice' })).stats);
    for (const write of [
      reader.remember({ input: { content: 'should not be saved' } }),
      reader.addTurn({ input: { sessionId: 's', role: 'USER', text: 'I like cats' } }),
      reader.gc({}),
    ]) {
      expect((await failure(write)).code).toBe('FORBIDDEN');
    }
    expect(countsOf((await server.client().stats({ userId: 'alice' })).stats)).toEqual(before);
  });

  it('malformed or overlong user ids are BAD_USER_INPUT and write nothing', async () => {
    const admin = server.client();
    const before = (await admin.users({})).users.totalCount;
    for (const userId of ['', 'has space', 'x'.repeat(129), 'semi;colon', 'ünï']) {
      const error = await failure(admin.forUser(userId).remember({ input: { content: 'nope' } }));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/^userId: /);
    }
    expect((await failure(admin.createAccessToken({ userId: 'bad id' }))).code).toBe('BAD_USER_INPUT');
    expect((await admin.users({})).users.totalCount).toBe(before);
    // An unknown user reads as empty, not as an error.
    expect((await admin.forUser('nobody').memories({})).memories.totalCount).toBe(0);
  });

  it('tokens are stored hashed and listed without their secret', async () => {
    const listed = (await server.client().accessTokens({ userId: 'alice' })).accessTokens;
    expect(listed.map((t) => t.label)).toEqual(['app', null]);
    // Both were used by the tests above; the time is kept to the minute.
    expect(listed.every((t) => t.lastUsedAt !== null)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(aliceToken);
    // The raw bytes of the file and its write-ahead log: the secret is nowhere, only its hash.
    const bytes = readFileSync(server.store.sqlite.name).toString('latin1') + readWal(server.store.sqlite.name);
    expect(bytes).toContain(hashToken(aliceToken));
    expect(bytes).not.toContain(aliceToken.slice(4));
  });

  it('a revoked token is refused at once over HTTP, and its open subscription closes within a second', async () => {
    const admin = server.client();
    const { createAccessToken } = await admin.createAccessToken({ userId: 'carol' });
    const carol = server.client(createAccessToken.token);
    expect((await carol.stats({})).stats.turns).toBe(0);

    const ws = createWsClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { token: createAccessToken.token },
      retryAttempts: 0,
    });
    const events = ws.iterate({ query: 'subscription { memoryEvents { memoryId memory { content userId } } }' });
    const first = await firstEvent(events, () =>
      admin.forUser('carol').remember({ input: { content: `Carol note ${Math.random()}` } }),
    );
    expect(first.data).toMatchObject({ memoryEvents: { memory: { userId: 'carol' } } });

    const revokedAt = Date.now();
    await admin.revokeAccessToken({ id: createAccessToken.accessToken.id });
    const error = await failure(carol.stats({}));
    expect(error.status).toBe(401);
    const ended = await Promise.race([
      events.next().then(
        (r) => (r.done ? 'closed' : 'event'),
        () => 'closed',
      ),
      new Promise((resolve) => setTimeout(() => resolve('still open'), 1000)),
    ]);
    expect(ended).toBe('closed');
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    await ws.dispose();
    // A new WebSocket with it is refused too.
    const again = createWsClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { token: createAccessToken.token },
      retryAttempts: 0,
    });
    await expect(again.iterate({ query: '{ viewer { userId } }' }).next()).rejects.toBeTruthy();
    await again.dispose();
  });

  it('a subscription over HTTP (server-sent events) ends within a second of its token being revoked', async () => {
    const admin = server.client();
    const { createAccessToken } = await admin.createAccessToken({ userId: 'sse-user' });
    const response = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${createAccessToken.token}`,
      },
      body: JSON.stringify({ query: 'subscription { turnAdded { id userId } }' }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = '';
    const until = async (ms: number) => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const chunk = await Promise.race([
          reader.read(),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 100)),
        ]);
        if (chunk === null) continue;
        if (chunk.done) return 'ended';
        received += new TextDecoder().decode(chunk.value);
      }
      return 'open';
    };
    await admin.forUser('sse-user').addTurn({ input: { sessionId: 's', role: 'USER', text: 'hello over SSE' } });
    await admin.forUser('someone-else').addTurn({ input: { sessionId: 's', role: 'USER', text: 'not for sse-user' } });
    expect(await until(400)).toBe('open');
    await admin.revokeAccessToken({ id: createAccessToken.accessToken.id });
    const revokedAt = Date.now();
    expect(await until(1500)).toBe('ended');
    expect(Date.now() - revokedAt).toBeLessThan(1100);
    expect(received).not.toContain('someone-else');
  });
});

describe('scoped tokens on loopback without an admin token', () => {
  it('no token is the admin; a scoped token narrows; a token revoked from another connection closes its socket', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    );
    const server = await startServer();
    const app2Store = await openStore({ path: server.store.sqlite.name, env: {} });
    const app2 = buildApp({ store: app2Store, host: '127.0.0.1', port: 0, jobs: false, logger });
    const { url } = await app2.start();
    try {
      // Another process (the CLI) creates the token on the same file.
      const { token, row } = await createToken(server.store, { userId: 'dana', agentId: 'coach' });
      const admin = createClient({ url, webSocketImpl: WebSocket });
      expect((await admin.viewer()).viewer.admin).toBe(true);
      const dana = createClient({ url, token, webSocketImpl: WebSocket });
      expect((await dana.viewer()).viewer).toEqual({ admin: false, userId: 'dana', agentId: 'coach', readOnly: false });
      // Bound to agent coach: its writes are the coach's own memory, another agent is FORBIDDEN.
      expect((await dana.remember({ input: { content: 'Dana runs on Sundays' } })).remember.memory.agentId).toBe(
        'coach',
      );
      expect((await failure(dana.forUser('dana', 'helper').memories({}))).code).toBe('FORBIDDEN');
      // Another agent's memory stays out of nested lists too (an entity's memories).
      await admin
        .forUser('dana', 'helper')
        .addTurn({ input: { sessionId: 'h1', role: 'USER', name: 'Dana', text: 'I live in Lisbon' } });
      const nested = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query:
            '{ entities { edges { node { name memories { totalCount edges { node { content agentId } } } turns { totalCount edges { node { text agentId } } } } } } }',
        }),
      }).then((r) => r.json() as Promise<any>);
      expect(nested.data.entities.edges.map((e: any) => e.node.name)).toContain('Dana');
      expect(JSON.stringify(nested.data)).not.toMatch(/helper|Lisbon/);
      const adminView = await admin.forUser('dana').entity({ name: 'Dana' });
      expect(adminView.entity.memories.edges.map((e) => e.node.content)).toContain('Dana lives in Lisbon');
      expect((await failure(createClient({ url, token: 'smt_not-a-token' }).stats({}))).status).toBe(401);

      const ws = createWsClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { token },
        retryAttempts: 0,
      });
      const events = ws.iterate({ query: 'subscription { turnAdded { id } }' });
      await firstEvent(events, () =>
        admin.forUser('dana', 'coach').addTurn({ input: { sessionId: 's', role: 'USER', text: 'hello there' } }),
      );
      const revokedAt = Date.now();
      await revokeToken(server.store, row.id); // not through app2: it only sees the database change
      const ended = await Promise.race([
        events.next().then(
          (r) => (r.done ? 'closed' : 'event'),
          () => 'closed',
        ),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 1500)),
      ]);
      expect(ended).toBe('closed');
      expect(Date.now() - revokedAt).toBeLessThan(1100);
      await ws.dispose();
      await admin.dispose();
      await dana.dispose();
      expect(lines.join('')).not.toContain(token);
    } finally {
      await app2.stop();
      await closeStore(app2Store);
      await server.close();
    }
  });
});

function readWal(path: string) {
  try {
    return readFileSync(`${path}-wal`).toString('latin1');
  } catch {
    return '';
  }
}
