// The GraphQL API end to end: a listening server, the generated client, a database file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStatus, Role, SaveAction, type SymbiosisClient } from '../../client/src/index.ts';
import { countsOf, failure, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer();
  client = server.client();
});
afterAll(() => server.close());

describe('GraphQL API over HTTP', () => {
  it('adds turns, registers the session and extracts memories', async () => {
    const first = await client.addTurn({
      input: { sessionId: 's1', role: Role.User, text: 'I like JRPGs and my name is Alex' },
    });
    expect(first.addTurn.newSession).toBe(true);
    expect(first.addTurn.turn).toMatchObject({
      sessionId: 's1',
      role: 'USER',
      text: 'I like JRPGs and my name is Alex',
    });
    expect(first.addTurn.turn.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const contents = first.addTurn.extracted.map((e) => e.memory.content.toLowerCase());
    expect(contents.some((c) => c.includes('jrpg'))).toBe(true);
    expect(contents.some((c) => c.includes('alex'))).toBe(true);
    expect(first.addTurn.extracted.every((e) => e.action === SaveAction.Created)).toBe(true);

    const second = await client.addTurn({
      input: { sessionId: 's1', role: Role.Assistant, text: 'Nice to meet you, Alex.', at: '2026-01-01T10:00:00.000Z' },
    });
    expect(second.addTurn.newSession).toBe(false);
    expect(second.addTurn.turn.at).toBe('2026-01-01T10:00:00.000Z');
    expect(second.addTurn.extracted).toEqual([]);

    const history = await client.addTurn({
      input: { sessionId: 's1', role: Role.User, text: 'I love tea', autoExtract: false },
    });
    expect(history.addTurn.extracted).toEqual([]);
  });

  it('remembers, merges duplicates and reads a memory with its sources', async () => {
    const created = await client.remember({
      input: { content: 'User owns a cat named Miso', importance: 1, tags: ['pets', 'pets'] },
    });
    expect(created.remember.action).toBe(SaveAction.Created);
    expect(created.remember.memory).toMatchObject({
      layer: 'MID',
      kind: 'FACT',
      status: 'ACTIVE',
      importance: 1,
      tags: ['pets'],
    });
    const again = await client.remember({ input: { content: 'user owns a cat named miso!' } });
    expect(again.remember).toMatchObject({
      action: SaveAction.Merged,
      memory: { id: created.remember.memory.id, hits: 1 },
    });

    const extracted = (await client.memories({ q: 'JRPGs' })).memories.edges[0]!.node;
    const { memory } = await client.memory({ id: extracted.id });
    expect(memory?.sources[0]).toMatchObject({
      reason: 'EXTRACTED',
      turn: { sessionId: 's1', text: 'I like JRPGs and my name is Alex' },
    });
    expect(memory?.decisions[0]?.action).toBe('CREATED');
    expect((await client.memory({ id: 999_999 })).memory).toBeNull();
  });

  it('lists memories as a cursor connection with filters', async () => {
    for (let i = 0; i < 5; i++)
      await client.remember({ input: { content: `Paging fact number ${i}`, tags: ['paging'] } });
    const page1 = await client.memories({ tag: 'paging', first: 2 });
    expect(page1.memories.totalCount).toBe(5);
    expect(page1.memories.edges).toHaveLength(2);
    expect(page1.memories.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const page2 = await client.memories({ tag: 'paging', first: 2, after: page1.memories.pageInfo.endCursor });
    const page3 = await client.memories({ tag: 'paging', first: 2, after: page2.memories.pageInfo.endCursor });
    expect(page3.memories.pageInfo.hasNextPage).toBe(false);
    const ids = [page1, page2, page3].flatMap((p) => p.memories.edges.map((e) => e.node.id));
    expect(new Set(ids).size).toBe(5);

    const text = await client.memories({ q: 'number 3' });
    expect(text.memories.edges.map((e) => e.node.content)).toEqual(['Paging fact number 3']);
    expect((await client.memories({ layer: 'LONG' })).memories.totalCount).toBe(0);
  });

  it("pages a session's turns backward and lists sessions", async () => {
    for (let i = 0; i < 4; i++)
      await client.addTurn({ input: { sessionId: 'paged', role: Role.User, text: `turn ${i}`, autoExtract: false } });
    const latest = await client.turns({ sessionId: 'paged', last: 3 });
    expect(latest.turns.edges.map((e) => e.node.text)).toEqual(['turn 1', 'turn 2', 'turn 3']);
    expect(latest.turns).toMatchObject({ totalCount: 4, pageInfo: { hasPreviousPage: true, hasNextPage: false } });
    const older = await client.turns({ sessionId: 'paged', last: 3, before: latest.turns.pageInfo.startCursor });
    expect(older.turns.edges.map((e) => e.node.text)).toEqual(['turn 0']);
    expect(older.turns.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });

    const { session } = await client.session({ id: 'paged', last: 2 });
    expect(session).toMatchObject({ id: 'paged', turnCount: 4 });
    expect(session?.turns.edges.map((e) => e.node.text)).toEqual(['turn 2', 'turn 3']);
    expect((await client.session({ id: 'nope' })).session).toBeNull();
    const sessions = await client.sessions({ first: 10 });
    expect(sessions.sessions.edges.map((e) => e.node.id).sort()).toEqual(['paged', 's1']);
  });

  it('builds the context of a session', async () => {
    const { context } = await client.context({ sessionId: 's1' });
    expect(context.shortTerm.map((t) => t.text)).toContain('I like JRPGs and my name is Alex');
    expect(context).toMatchObject({ query: 'I love tea', tokenBudget: 1000, tokenizer: 'o200k_base' });
    expect(context.tokensUsed).toBeLessThanOrEqual(1000);
    expect(context.markdown).toMatch(/^- User owns a cat named Miso \(stated \d{4}-\d{2}-\d{2}\)$/m);
    // Nothing about tea was said before this session: the cat fills the space as salient memory.
    const miso = context.items.find((i) => i.text === 'User owns a cat named Miso')!;
    expect(miso).toMatchObject({ kind: 'FACT', reason: 'RECENCY' });
    expect(context.relevant.map((m) => m.id)).toContain(miso.id);
    // Retrieval counts as access: it restarts the forgetting curve.
    expect((await client.memory({ id: miso.id })).memory?.accessCount).toBeGreaterThan(0);
  });

  it('updates, confirms, corrects and explains memories', async () => {
    const { remember } = await client.remember({ input: { content: 'User lives in Lyon' } });
    const id = remember.memory.id;
    const updated = await client.updateMemory({ id, input: { tags: ['home'], importance: 0.5 } });
    expect(updated.updateMemory).toMatchObject({ tags: ['home'], importance: 0.5 });
    const confirmed = await client.confirmMemory({ id });
    expect(confirmed.confirmMemory).toMatchObject({ protected: true, decayRate: 0, confidence: 1 });

    const corrected = await client.correctMemory({ id, content: 'User lives in Paris' });
    expect(corrected.correctMemory.previous).toMatchObject({ id, status: MemoryStatus.Archived });
    expect(corrected.correctMemory.memory).toMatchObject({
      content: 'User lives in Paris',
      status: 'ACTIVE',
      supersedes: [{ id }],
    });

    const { explain } = await client.explain({ id });
    expect(explain).toMatchObject({
      memoryId: id,
      status: 'ARCHIVED',
      supersededBy: [{ id: corrected.correctMemory.memory.id }],
    });
    expect(explain.decisions.map((d) => d.action)).toEqual(
      expect.arrayContaining(['CREATED', 'UPDATED', 'CONFIRMED', 'ARCHIVED', 'SUPERSEDED']),
    );
    const terms = explain.scoreTerms;
    expect(terms.frequency + terms.recency + terms.importance).toBeCloseTo(explain.score, 6);
    expect(explain.rules).toContain('protected: decay_rate = 0 (never decays, exempt from cleanup)');

    const restored = await client.updateMemory({ id, input: { status: MemoryStatus.Active } });
    expect(restored.updateMemory.status).toBe('ACTIVE');
  });

  it('forgets by id and by text (memories and turns), and explains the deleted memory', async () => {
    const { remember } = await client.remember({ input: { content: 'User secret code is 4242' } });
    const byId = await client.forget({ id: remember.memory.id });
    expect(byId.forget).toEqual({ deleted: 1, memoryIds: [remember.memory.id], turnIds: [] });
    expect((await client.memory({ id: remember.memory.id })).memory).toBeNull();
    const { explain } = await client.explain({ id: remember.memory.id });
    expect(explain).toMatchObject({ status: 'DELETED', memory: null, decisions: [{ action: 'DELETED' }] });

    await client.addTurn({
      input: { sessionId: 'private', role: Role.User, text: 'My locker combination is zebra-77', autoExtract: false },
    });
    await client.remember({ input: { content: 'Locker combination zebra-77' } });
    const byText = await client.forget({ text: 'zebra 77' });
    expect(byText.forget.deleted).toBe(1);
    expect(byText.forget.turnIds).toHaveLength(1);
    expect((await client.memories({ q: 'zebra' })).memories.totalCount).toBe(0);
    expect((await client.turns({ sessionId: 'private' })).turns.edges).toEqual([]);
  });

  it('runs GC and reports stats', async () => {
    const { gc } = await client.gc();
    expect(gc.mode).toBe('ARCHIVE');
    expect(gc.scored).toBeGreaterThan(0);
    expect(gc.byReason).toEqual({ lowScore: 0, expired: 0, overCapacity: 0 });
    const { stats } = await client.stats();
    expect(stats.sessions).toBe(3);
    expect(stats.memories.total).toBe(stats.memories.active + stats.memories.archived);
    expect(stats.memories.mid + stats.memories.long).toBe(stats.memories.active);
    expect(stats.features.fts).toBe(true);
    const jobs = { pending: 0, running: 0, done: 0, dead: 0 };
    for (const row of server.store.sqlite.prepare('select status, count(*) as n from jobs group by status').all() as {
      status: keyof typeof jobs;
      n: number;
    }[]) {
      jobs[row.status] = row.n;
    }
    // Nothing has run them (no worker here): every pending job is due, waiting.
    expect(stats.jobs).toMatchObject({ ...jobs, backlog: jobs.pending, nerDeferred: 0, nerCheapMode: false });
    expect(stats.jobs.byType.reduce((n, t) => n + t.backlog, 0)).toBe(jobs.pending);
    expect(stats.turns).toBe((server.store.sqlite.prepare('select count(*) as n from turns').get() as { n: number }).n);
  });
});

describe('GraphQL errors', () => {
  it('bad input carries BAD_USER_INPUT and names the field; nothing changes', async () => {
    const counts = async () => countsOf((await client.stats()).stats);
    const before = await counts();
    const empty = await failure(client.remember({ input: { content: '   ' } }));
    expect(empty).toMatchObject({ code: 'BAD_USER_INPUT', message: 'input.content: must not be empty' });
    expect((await failure(client.remember({ input: { content: 'x', importance: 3 } }))).code).toBe('BAD_USER_INPUT');
    expect((await failure(client.memories({ first: 1000 }))).message).toMatch(/^first: /);
    expect((await failure(client.forget({ id: 1, text: 'both' }))).message).toBe('give exactly one of id or text');
    expect((await failure(client.updateMemory({ id: 1, input: {} }))).message).toMatch(/at least one of/);
    expect((await failure(client.turns({ sessionId: 's1', before: 'garbage' }))).message).toBe(
      'before: not a cursor of this list',
    );
    const date = await failure(
      client.addTurn({ input: { sessionId: 's1', role: Role.User, text: 'x', at: 'yesterday' } }),
    );
    expect(date.code).toBe('BAD_USER_INPUT');
    expect(date.message).toMatch(/DateTime: expected an ISO-8601 date-time/);
    expect(await counts()).toEqual(before);
  });

  it('missing ids carry NOT_FOUND', async () => {
    for (const call of [
      client.explain({ id: 987_654 }),
      client.confirmMemory({ id: 987_654 }),
      client.correctMemory({ id: 987_654, content: 'x' }),
    ]) {
      const error = await failure(call);
      expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'memory 987654 not found' });
    }
  });

  it('masks unexpected errors', async () => {
    const scratch = await startServer();
    try {
      const { remember } = await scratch.client().remember({ input: { content: 'A fact to break' } });
      scratch.store.sqlite.exec('drop table memory_events');
      const error = await failure(scratch.client().explain({ id: remember.memory.id }));
      expect(error.message).toBe('Unexpected error.');
      expect(JSON.stringify(error.errors)).not.toMatch(/memory_events|sqlite/i);
    } finally {
      await scratch.close();
    }
  });
});
