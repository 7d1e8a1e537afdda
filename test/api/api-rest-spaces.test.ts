// The REST routes take the memory space as `user_id` / `agent_id` (query string or JSON
// body); a scoped token narrows them like the GraphQL API does; export / import take `user_id`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/api-server.ts';

const ADMIN = 'rest-admin-token-93c0d1e7';

describe('REST with user_id', () => {
  let server: TestServer;
  let grace: string;
  beforeAll(async () => {
    server = await startServer({ token: ADMIN });
    grace = (await server.client().createAccessToken({ userId: 'grace' })).createAccessToken.token;
  });
  afterAll(() => server.close());

  const call = async (method: string, path: string, body?: unknown, token = ADMIN) => {
    const response = await fetch(`${server.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('writes and reads in the named user only', async () => {
    const turn = await call('POST', '/turns', {
      session_id: 'chat',
      role: 'user',
      text: 'I live in Oslo',
      user_id: 'heidi',
    });
    expect(turn.status).toBe(201);
    expect(
      (await call('POST', '/turns', { session_id: 'chat', role: 'user', text: 'I live in Quito', user_id: 'grace' }))
        .status,
    ).toBe(201);
    const heidi = await call('GET', '/memories?user_id=heidi');
    expect(heidi.body.memories.map((m: any) => m.content)).toEqual(['User lives in Oslo']);
    const context = await call('GET', '/context?session_id=chat&user_id=heidi&query=where');
    expect(JSON.stringify(context.body)).not.toContain('Quito');
    // Grace's token: its own user by default, FORBIDDEN for another.
    expect((await call('GET', '/memories', undefined, grace)).body.memories.map((m: any) => m.content)).toEqual([
      'User lives in Quito',
    ]);
    const other = await call('GET', '/memories?user_id=heidi', undefined, grace);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('FORBIDDEN');
    const bad = await call('POST', '/memories', { content: 'x', user_id: 'no spaces allowed' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_USER_INPUT');
    const notString = await call('POST', '/memories', { content: 'x', user_id: 42 });
    expect(notString.status).toBe(400);
    // Heidi's memory id is 404 for Grace, like an id that never existed.
    const id = heidi.body.memories[0].id;
    expect((await call('GET', `/memories/${id}/why`, undefined, grace)).status).toBe(404);
  });

  it('export takes user_id (a user token exports its own user only)', async () => {
    const response = await fetch(`${server.base}/export`, { headers: { authorization: `Bearer ${grace}` } });
    const text = await response.text();
    expect(text).toContain('Quito');
    expect(text).not.toContain('Oslo');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => 'userId' in l).every((l) => l.userId === 'grace')).toBe(true);
    const denied = await fetch(`${server.base}/export?user_id=heidi`, {
      headers: { authorization: `Bearer ${grace}` },
    });
    expect(denied.status).toBe(403);
  });
});
