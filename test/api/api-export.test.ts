// Export / import over HTTP (for `sm export` / `sm import --url`): NDJSON out of one server and
// into another gives the same records; import is idempotent; bad files change nothing; the
// routes follow the same access rules as GraphQL.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../../client/src/index.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { write } from '../../server/core/kernel/store.ts';
import { openSnapshot } from '../../server/storage/sqlite/snapshot.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

let source: TestServer;
let target: TestServer;

beforeAll(async () => {
  [source, target] = await Promise.all([startServer({ config: { extractor: { mode: 'heuristic' } } }), startServer()]);
  const client = source.client();
  await client.addTurn({
    input: {
      sessionId: 'x1',
      role: Role.User,
      text: 'My name is Ines and I live in Porto',
      at: '2026-01-02T10:00:00.000Z',
    },
  });
  await client.addTurn({
    input: { sessionId: 'x1', role: Role.Assistant, text: 'Hello Ines!', at: '2026-01-02T10:00:01.000Z' },
  });
  await client.addTurn({
    input: {
      sessionId: 'x2',
      role: Role.User,
      text: 'Actually my name is Inês, with the accent',
      at: '2026-01-03T10:00:00.000Z',
    },
  });
  await client.remember({ input: { content: 'User prefers window seats', tags: ['travel'], importance: 0.7 } });
  await client.runJobs();
});
afterAll(() => Promise.all([source.close(), target.close()]));

const exportText = async (server: TestServer, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.base}/export`, { headers });
  return { response, text: await response.text() };
};
const records = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; exportedAt?: number });
const postImport = (server: TestServer, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.base}/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...headers },
    body,
  });

describe('export / import over HTTP', () => {
  it('GET /export streams NDJSON: the header, then every record', async () => {
    const { response, text } = await exportText(source);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('content-disposition')).toMatch(
      /attachment; filename="symbiosis-memory-\d{4}-\d{2}-\d{2}\.jsonl"/,
    );
    const lines = records(text);
    expect(lines[0]).toMatchObject({ type: 'header', format: 'symbiosis-memory', version: 2 });
    const types = new Set(lines.map((l) => l.type));
    for (const type of ['session', 'turn', 'memory', 'entity', 'source', 'event', 'turn_entity'])
      expect(types, type).toContain(type);
    expect(lines.filter((l) => l.type === 'turn')).toHaveLength(3);
  });

  it('POST /import restores it elsewhere (same records out again), and a second import adds nothing', async () => {
    const { text } = await exportText(source);
    const response = await postImport(target, text);
    expect(response.status).toBe(200);
    const report = (await response.json()) as Record<string, { added: number; existing: number }> & { lines: number };
    expect(report.lines).toBe(text.trim().split('\n').length);
    expect(report.turn).toEqual({ added: 3, existing: 0 });
    expect(report.session).toEqual({ added: 2, existing: 0 });
    expect(report.memory!.added).toBeGreaterThanOrEqual(3);

    const again = (await exportText(target)).text;
    const strip = (t: string) => records(t).filter((r) => r.type !== 'header');
    expect(strip(again)).toEqual(strip(text));
    const { memories } = await target.client().memories({ q: 'window seats' });
    expect(memories.edges[0]?.node).toMatchObject({
      content: 'User prefers window seats',
      tags: ['travel'],
      importance: 0.7,
    });

    const second = (await (await postImport(target, text)).json()) as Record<
      string,
      { added: number; existing: number }
    >;
    expect(second.turn).toEqual({ added: 0, existing: 3 });
    expect(
      Object.entries(second)
        .filter(([k]) => k !== 'lines')
        .every(([, v]) => v.added === 0),
    ).toBe(true);
  });

  it('a bad file is BAD_USER_INPUT naming the line, and changes nothing', async () => {
    const before = (await exportText(target)).text;
    const { text } = await exportText(source);
    const lines = text.trim().split('\n');
    const cases = [
      'not json at all',
      lines.slice(1).join('\n'),
      [lines[0], '{"type":"turn","id":1}', 'garbage'].join('\n'),
      [lines[0], '{"type":"spaceship"}'].join('\n'),
      '',
    ];
    for (const body of cases) {
      const response = await postImport(target, body);
      expect(response.status, body.slice(0, 30)).toBe(400);
      const error = ((await response.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('BAD_USER_INPUT');
      if (body) expect(error.message).toMatch(/^line \d+: /);
    }
    const fresh = await startServer();
    try {
      const response = await postImport(fresh, [lines[0], '{"type":"turn","id":1}'].join('\n'));
      expect(response.status).toBe(400);
      expect((await fresh.client().stats()).stats.turns).toBe(0);
    } finally {
      await fresh.close();
    }
    expect(records((await exportText(target)).text).slice(1)).toEqual(records(before).slice(1));
  });

  it('refuses the wrong method, and follows the API token like GraphQL', async () => {
    const wrong = await fetch(`${source.base}/import`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await fetch(`${source.base}/export`, { method: 'POST' })).status).toBe(405);

    const guarded = await startServer({ token: 'export-token-5b7d2e90' });
    try {
      expect((await exportText(guarded)).response.status).toBe(401);
      expect((await postImport(guarded, '')).status).toBe(401);
      const ok = await exportText(guarded, { authorization: 'Bearer export-token-5b7d2e90' });
      expect(ok.response.status).toBe(200);
      expect(records(ok.text)[0]).toMatchObject({ type: 'header' });
      const cross = await fetch(`${guarded.base}/export`, {
        headers: { authorization: 'Bearer export-token-5b7d2e90', origin: 'https://evil.example' },
      });
      expect(cross.status).toBe(403);
    } finally {
      await guarded.close();
    }
  });

  it('an export reads one snapshot: writes committed meanwhile are not half in it', async () => {
    const snapshot = await openSnapshot(source.store);
    try {
      await write(source.store, async () =>
        addTurn(source.store, DEFAULT_SPACE, {
          sessionId: 'late',
          role: 'user',
          text: 'written during the export',
          autoExtract: false,
        }),
      );
      const seen = snapshot.store.sqlite.prepare("select count(*) as n from turns where session_id = 'late'").get() as {
        n: number;
      };
      expect(seen.n).toBe(0);
    } finally {
      snapshot.close();
    }
    expect((await exportText(source)).text).toContain('written during the export');
  });
});
