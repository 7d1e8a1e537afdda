// The REST routes over the same core services: paths, snake_case, status codes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('REST', () => {
  it('the documented curl works as written', async () => {
    // The command of docs/api.md, with only host and port swapped for the test server's.
    const { stdout } = await promisify(execFile)('curl', [
      '-s',
      '-X',
      'POST',
      `${server.base}/turns`,
      '-H',
      'Content-Type: application/json',
      '-d',
      '{"session_id":"s1","role":"user","text":"I like JRPGs and my name is Alex","auto_extract":true}',
    ]);
    const body = JSON.parse(stdout);
    expect(body.turn_id).toBeGreaterThan(0);
    expect(body.turn).toMatchObject({ session_id: 's1', role: 'user', text: 'I like JRPGs and my name is Alex' });
    expect(body.extracted_memories.length).toBeGreaterThan(0);
    for (const m of body.extracted_memories)
      expect(m).toMatchObject({ id: expect.any(Number), content: expect.any(String), action: 'created' });
  });

  it('POST /turns validates input (400) and auto_extract=false stores history only', async () => {
    const quiet = await call('POST', '/turns', {
      session_id: 's1',
      role: 'assistant',
      text: 'Noted, Alex.',
      auto_extract: false,
    });
    expect(quiet.status).toBe(201);
    expect(quiet.body.extracted_memories).toEqual([]);
    const bad = await call('POST', '/turns', { session_id: '', role: 'user', text: 'x' });
    expect(bad).toEqual({
      status: 400,
      body: { error: { code: 'BAD_USER_INPUT', message: 'session_id: must not be empty' } },
    });
    expect((await call('POST', '/turns', { session_id: 's1', role: 'robot', text: 'x' })).body.error.message).toMatch(
      /^role: /,
    );
    expect((await call('POST', '/turns', '{not json')).body.error.message).toBe('body: not valid JSON');
    expect((await call('POST', '/turns', '[1]')).status).toBe(400);
  });

  it('POST /memories creates (201) or merges (200); GET /memories filters and searches', async () => {
    const created = await call('POST', '/memories', {
      content: 'User drinks green tea',
      importance: 1,
      tags: ['drinks'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      action: 'created',
      memory: { layer: 'mid', importance: 1, tags: ['drinks'], last_seen_at: expect.stringMatching(/Z$/) },
    });
    const merged = await call('POST', '/memories', { content: 'User drinks green tea.' });
    expect(merged).toMatchObject({
      status: 200,
      body: { action: 'merged', memory: { id: created.body.memory.id, hits: 1 } },
    });
    expect((await call('POST', '/memories', { content: '' })).status).toBe(400);

    const list = await call('GET', '/memories?layer=mid&q=&limit=50');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(list.body.memories.length);
    expect(list.body.memories[0].content).toBe('User drinks green tea'); // highest score first
    const found = await call('GET', '/memories?q=green%20tea');
    expect(found.body.memories.map((m: any) => m.content)).toEqual(['User drinks green tea']);
    expect((await call('GET', '/memories?limit=0')).status).toBe(400);
    expect((await call('GET', '/memories?layer=short')).body.error.message).toMatch(/^layer: /);
  });

  it('GET /context returns short_term, mid_term and long_term_hint', async () => {
    const context = await call('GET', '/context?session_id=s1&k=20');
    expect(context.status).toBe(200);
    expect(context.body.short_term.map((t: any) => t.text)).toEqual([
      'I like JRPGs and my name is Alex',
      'Noted, Alex.',
    ]);
    expect(context.body.short_term[0]).toMatchObject({
      session_id: 's1',
      role: 'user',
      ts: expect.stringMatching(/Z$/),
    });
    expect(context.body.mid_term.length).toBeGreaterThan(0);
    expect(context.body.long_term_hint).toEqual([]);
    expect(context.body.markdown).toContain('User drinks green tea');
    expect((await call('GET', '/context')).body.error.message).toMatch(/^session_id: /);
    const about = await call('GET', '/context?session_id=s9&query=green%20tea');
    expect(about.body.relevant.map((m: any) => m.content)).toContain('User drinks green tea');
  });

  it('PATCH /memories/{id} updates (200), 400 on bad input, 404 on a missing id', async () => {
    const { body } = await call('POST', '/memories', { content: 'User plays chess' });
    const id = body.memory.id;
    const patched = await call('PATCH', `/memories/${id}`, { tags: ['games'], status: 'archived' });
    expect(patched).toMatchObject({
      status: 200,
      body: { id, tags: ['games'], status: 'archived', valid_until: expect.any(String) },
    });
    expect((await call('PATCH', `/memories/${id}`, {})).status).toBe(400);
    expect((await call('PATCH', `/memories/${id}`, { status: 'deleted' })).status).toBe(400);
    expect((await call('PATCH', '/memories/abc', { tags: [] })).status).toBe(400);
    expect(await call('PATCH', '/memories/999999', { tags: [] })).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'memory 999999 not found' } },
    });
  });

  it('GET /memories/{id}/why explains (404 on a missing id)', async () => {
    const { body } = await call('POST', '/memories', { content: 'User is learning Rust', importance: 1 });
    const why = await call('GET', `/memories/${body.memory.id}/why`);
    expect(why.status).toBe(200);
    expect(why.body).toMatchObject({
      memory_id: body.memory.id,
      status: 'active',
      hits: 0,
      score_terms: { importance: 2 },
      rules: [],
    });
    expect(why.body.age_days).toBeGreaterThanOrEqual(0);
    expect(why.body.decisions[0]).toMatchObject({ action: 'created', at: expect.stringMatching(/Z$/) });
    expect((await call('GET', '/memories/424242/why')).status).toBe(404);
  });

  it('POST /gc runs a pass and returns its summary', async () => {
    const gc = await call('POST', '/gc');
    expect(gc.status).toBe(200);
    expect(gc.body).toMatchObject({
      mode: 'archive',
      scored: expect.any(Number),
      promoted: 0,
      by_reason: { low_score: 0, expired: 0, over_capacity: 0 },
    });
  });

  it('wrong method is 405, unknown path is 404', async () => {
    const wrong = await fetch(`${server.base}/gc`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await fetch(`${server.base}/nowhere`)).status).toBe(404);
  });
});
