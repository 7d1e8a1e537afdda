// Search over the API: facts, reflections and turns with their fused score and per-signal ranks;
// filters; hostile query text is always a list, never an error; bad filters are BAD_USER_INPUT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStatus, Role, SearchKind, SearchSignalKind, type SymbiosisClient } from '../../client/src/index.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
  await client.addTurn({
    input: {
      sessionId: 'pets',
      role: Role.User,
      text: 'I adopted a cat named Miso last week',
      at: '2026-01-05T10:00:00.000Z',
    },
  });
  await client.addTurn({
    input: {
      sessionId: 'pets',
      role: Role.Assistant,
      text: 'Miso is a lovely name for a cat!',
      at: '2026-01-05T10:00:05.000Z',
    },
  });
  await client.addTurn({
    input: {
      sessionId: 'work',
      role: Role.User,
      text: 'My manager Priya wants the quarterly report by Friday',
      at: '2026-02-01T09:00:00.000Z',
    },
  });
  await client.remember({ input: { content: 'User is allergic to peanuts', tags: ['health'] } });
});
afterAll(() => server.close());

describe('search', () => {
  it('finds facts and turns, best first, with the signals that found them', async () => {
    const { search } = await client.search({ query: 'Miso the cat' });
    expect(search.length).toBeGreaterThan(0);
    const scores = search.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const hit of search) {
      expect(hit.signals.length).toBeGreaterThan(0);
      expect(hit.signals.every((s) => s.rank >= 1)).toBe(true);
      expect(hit.kind === SearchKind.Turn ? hit.turn?.id : hit.memory?.id).toBe(hit.id);
      expect(hit.kind === SearchKind.Turn ? hit.memory : hit.turn).toBeNull();
    }
    const turn = search.find((h) => h.kind === SearchKind.Turn && h.turn?.text.startsWith('I adopted'));
    expect(turn).toMatchObject({ sessionId: 'pets', at: '2026-01-05T10:00:00.000Z', sourceTurnIds: [] });
    expect(turn!.signals.map((s) => s.signal)).toContain(SearchSignalKind.Lexical);
    const fact = search.find((h) => h.kind === SearchKind.Fact);
    expect(fact?.memory?.content).toMatch(/Miso/);
    expect(fact?.sourceTurnIds).toEqual([turn!.id]);
  });

  it('filters by kind, session, time, tags and status; memories found count as accessed', async () => {
    const facts = (await client.search({ query: 'Miso cat', kinds: [SearchKind.Fact] })).search;
    expect(facts.length).toBeGreaterThan(0);
    expect(facts.every((h) => h.kind === SearchKind.Fact)).toBe(true);
    const accessed = (await client.memory({ id: facts[0]!.id })).memory!;
    expect(accessed.accessCount).toBeGreaterThanOrEqual(1);
    expect(accessed.lastAccessedAt).not.toBeNull();

    expect((await client.search({ query: 'Miso cat', excludeSessionId: 'pets' })).search).toEqual([]);
    expect((await client.search({ query: 'Miso cat', sessionIds: ['work'] })).search).toEqual([]);
    const inTime = (
      await client.search({
        query: 'report Priya',
        from: '2026-01-20T00:00:00.000Z',
        to: '2026-02-02T00:00:00.000Z',
        kinds: [SearchKind.Turn],
      })
    ).search;
    expect(inTime.map((h) => h.sessionId)).toEqual(['work']);
    expect((await client.search({ query: 'report Priya', to: '2026-01-20T00:00:00.000Z' })).search).toEqual([]);
    const tagged = (await client.search({ query: 'peanuts', tags: ['health'] })).search;
    expect(tagged.map((h) => h.text)).toEqual(['User is allergic to peanuts']);
    expect((await client.search({ query: 'peanuts', status: MemoryStatus.Archived })).search).toEqual([]);
    expect((await client.search({ query: 'Miso cat', limit: 1 })).search).toHaveLength(1);
  });

  it('returns a list for hostile query text, never an error', async () => {
    const hostile = [
      '',
      '   ',
      '"',
      '""',
      "'",
      '*',
      '***',
      '-',
      '^',
      '(',
      ')',
      '{}',
      ':',
      'NEAR(',
      'NEAR(cat miso, 2)',
      'cat AND OR NOT',
      'miso*',
      '"unterminated',
      "') OR 1=1 --",
      '; drop table memories; --',
      'col:miso',
      'memories_fts:cat',
      '\\',
      '%_%',
      '\u0000',
      '\u202e',
      '😀🐈',
      'a'.repeat(5000),
      'Miso " OR "',
      '{"$ne": null}',
      '<script>alert(1)</script>',
    ];
    for (const query of hostile) {
      const { search } = await client.search({ query });
      expect(Array.isArray(search), JSON.stringify(query).slice(0, 40)).toBe(true);
    }
    // Still works afterwards, and the operators were plain words.
    expect((await client.search({ query: 'Miso' })).search.length).toBeGreaterThan(0);
  });

  it('bad filters are BAD_USER_INPUT naming the argument', async () => {
    expect((await failure(client.search({ query: 'cat', limit: 0 }))).message).toMatch(/^limit:/);
    expect((await failure(client.search({ query: 'cat', kinds: [] }))).message).toMatch(/^kinds:/);
    expect(
      (await failure(client.search({ query: 'cat', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })))
        .message,
    ).toMatch(/^from:/);
    const long = await failure(client.search({ query: 'x'.repeat(20_001) }));
    expect(long.code).toBe('BAD_USER_INPUT');
    expect(long.message).toMatch(/^query:/);
  });

  it('context takes a query for relevant facts from earlier sessions', async () => {
    const { context } = await client.context({ sessionId: 'work', query: 'what is the cat called?' });
    expect(context.relevant.map((m) => m.content).join(' ')).toMatch(/Miso/);
    const bounded = (await client.context({ sessionId: 'work', query: 'cat', tokenBudget: 50 })).context;
    expect(bounded.tokensUsed).toBeLessThanOrEqual(50);
    expect(bounded.markdown).toMatch(/Miso/);
  });
});
