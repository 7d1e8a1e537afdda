// Memory spaces in the domain (no GraphQL): what one user writes never reaches another, agents
// see their own memories plus the shared ones, and forgetUser leaves no trace of a user.
import { describe, expect, it } from 'vitest';
import { getContext } from '../../server/core/context/context.ts';
import { findEntity, listEntities } from '../../server/core/reads/entity-reads.ts';
import { explain } from '../../server/core/memory/explain.ts';
import { forget } from '../../server/core/memory/forget.ts';
import { runGc } from '../../server/core/memory/gc.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { remember } from '../../server/core/memory/memories.ts';
import { confirmMemory, correctMemory, updateMemory } from '../../server/core/memory/memory-edits.ts';
import { reflectionDue } from '../../server/core/memory/reflection.ts';
import { lexicalTurns, turnClauses } from '../../server/core/search/lexical.ts';
import { search } from '../../server/core/search/search.ts';
import { listSessions } from '../../server/core/turns/sessions.ts';
import { spaceOf, type Space } from '../../server/core/kernel/space.ts';
import { getStats } from '../../server/core/stats/stats.ts';
import { forgetUser, listUsers } from '../../server/core/users/users.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { everyTableRows } from '../helpers/store.ts';
import { ALICE, BOB, twoUsers } from '../helpers/two-users.ts';

const contents = (rows: { content: string }[]) => rows.map((r) => r.content).sort();

describe('two users in one file', () => {
  it('share session ids, never facts, search hits, context, entities or conflicts', async () => {
    const { store, say } = await twoUsers();
    await say(ALICE, 'chat-1', 'I live in Berlin and I love hiking', 'Alice');
    await say(BOB, 'chat-1', 'I live in Lisbon and I love hiking', 'Bob');
    // The same words in both spaces: two memories, not one merged across users.
    expect(contents((await listMemories(store, ALICE)).rows)).toEqual(
      ['Alice loves hiking', 'Alice lives in Berlin'].sort(),
    );
    expect(contents((await listMemories(store, BOB)).rows)).toEqual(['Bob loves hiking', 'Bob lives in Lisbon'].sort());
    // Bob's move does not supersede Alice's home (conflicts stay inside a space).
    await say(BOB, 'chat-1', 'I live in Porto', 'Bob');
    expect(contents((await listMemories(store, BOB, { status: 'archived' })).rows)).toEqual(['Bob lives in Lisbon']);
    expect((await listMemories(store, ALICE)).rows.every((m) => m.status === 'active')).toBe(true);

    expect((await listSessions(store, ALICE, { limit: 10 })).rows.map((s) => [s.id, s.turnCount])).toEqual([
      ['chat-1', 1],
    ]);
    const hits = (await search(store, ALICE, { query: 'Lisbon Porto hiking' })).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => !/Lisbon|Porto|Bob/.test(h.text))).toBe(true);
    const context = await getContext(store, ALICE, { sessionId: 'chat-1', query: 'where does Bob live' });
    expect(context.markdown).not.toMatch(/Bob|Lisbon|Porto/);
    expect(context.shortTerm.map((t) => t.text)).toEqual(['I live in Berlin and I love hiking']);

    // Alice in one registry is not Alice in another.
    expect((await findEntity(store, ALICE, { name: 'Alice' }))?.userId).toBe('alice');
    expect(await findEntity(store, BOB, { name: 'Alice' })).toBeUndefined();
    expect((await listEntities(store, BOB)).rows.map((e) => e.name)).not.toContain('Alice');

    // An id from the other space is NOT_FOUND, exactly like an id that does not exist.
    const bobFact = (await listMemories(store, BOB)).rows[0]!;
    for (const act of [
      () => updateMemory(store, ALICE, bobFact.id, { content: 'hacked' }),
      () => confirmMemory(store, ALICE, bobFact.id),
      () => correctMemory(store, ALICE, bobFact.id, 'hacked'),
      () => forget(store, ALICE, { id: bobFact.id }),
      () => explain(store, ALICE, bobFact.id),
    ]) {
      await expect(act()).rejects.toThrow(
        expect.objectContaining({ code: 'NOT_FOUND', message: `memory ${bobFact.id} not found` }),
      );
    }
    await expect(explain(store, ALICE, 999_999)).rejects.toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'memory 999999 not found' }),
    );
    // forget by text only reaches the space's own rows.
    expect(await forget(store, ALICE, { text: 'Lisbon' })).toEqual({ memoryIds: [], turnIds: [] });
    expect(contents((await listMemories(store, BOB)).rows)).toContain('Bob lives in Porto');

    expect((await getStats(store, ALICE)).turns).toBe(1);
    expect((await getStats(store, BOB)).turns).toBe(2);
    expect((await getStats(store, null)).turns).toBe(3);
    expect((await listUsers(store)).rows.map((u) => [u.id, u.turns])).toEqual([
      ['alice', 1],
      ['bob', 2],
    ]);
  });

  it('search keeps to the user whether it owns most of the file (unscoped match) or little of it (space token)', async () => {
    const { store, say } = await twoUsers();
    for (const n of [1, 2, 3, 4, 5]) await say(BOB, 'b', `Bob saw zebra number ${n} at the zoo`);
    await say(ALICE, 'a', 'Alice saw a zebra at the zoo');
    const bobHits = (await search(store, BOB, { query: 'zebra zoo', kinds: ['turn'], limit: 10 })).hits;
    expect(bobHits.map((h) => h.turn!.userId)).toEqual(['bob', 'bob', 'bob', 'bob', 'bob']);
    expect(
      (await search(store, ALICE, { query: 'zebra zoo', kinds: ['turn'], limit: 10 })).hits.map((h) => h.text),
    ).toEqual(['Alice saw a zebra at the zoo']);
    // A small user's matches are ranked by BM25 over its own rows (not FTS5's rank): rarer and
    // more of the query's words first, stems matching as in the index.
    await say(ALICE, 'a', 'The zoo was crowded');
    await say(ALICE, 'a', 'Zebras were grazing, and the zebra foal slept');
    await say(ALICE, 'a', 'We had lunch');
    const texts = new Map(
      (await store.sql.all<{ id: number; text: string }>('select id, text from turns')).map((r) => [r.id, r.text]),
    );
    const ranked = (await lexicalTurns(store, ALICE, ['zebra', 'zoo'], turnClauses(ALICE, {}), 10)).map((s) =>
      texts.get(s.id),
    );
    expect(ranked).toEqual([
      'Alice saw a zebra at the zoo',
      'Zebras were grazing, and the zebra foal slept',
      'The zoo was crowded',
    ]);
  });

  it("a tiny user's rows are all read and ranked here: filters and agents apply, and frequencies count every row of the user", async () => {
    const { store, say } = await twoUsers();
    for (let n = 0; n < 20; n++) await say(BOB, 'b', `Bob planted tomato number ${n} in the garden`);
    for (const n of [1, 2, 3]) await say(ALICE, 'a1', `garden chores day ${n}`);
    await say(ALICE, 'a2', 'garden');
    await say(ALICE, 'a2', 'tomato soup with basil and cream');
    await say({ userId: 'alice', agentId: 'coach' }, 'a2', 'coach says tomato');
    const texts = new Map(
      (await store.sql.all<{ id: number; text: string }>('select id, text from turns')).map((r) => [r.id, r.text]),
    );
    const ranked = async (space: Space, filter: Parameters<typeof turnClauses>[1]) =>
      (await lexicalTurns(store, space, ['garden', 'tomato'], turnClauses(space, filter), 10)).map((s) =>
        texts.get(s.id),
      );
    // Inside session a2 both words are as rare; over all of Alice's rows "garden" is common, so
    // the longer turn with the rare word comes first (per-session counts would put "garden" first).
    expect(await ranked(ALICE, { sessionIds: ['a2'] })).toEqual([
      'coach says tomato',
      'tomato soup with basil and cream',
      'garden',
    ]);
    expect(await ranked({ userId: 'alice', agentId: 'helper' }, { sessionIds: ['a2'] })).toEqual([
      'tomato soup with basil and cream',
      'garden',
    ]);
    expect(await ranked(ALICE, { excludeSessionId: 'a2' })).toEqual([
      'garden chores day 3',
      'garden chores day 2',
      'garden chores day 1',
    ]);
    expect(
      (await search(store, ALICE, { query: 'tomato', kinds: ['turn'] })).hits.every((h) => h.turn!.userId === 'alice'),
    ).toBe(true);
  });

  it('an unknown user reads as empty, and a malformed id is BAD_USER_INPUT that writes nothing', async () => {
    const { store, say } = await twoUsers();
    await say(ALICE, 's', 'I love tea');
    const nobody = spaceOf('nobody');
    expect((await listMemories(store, nobody)).rows).toEqual([]);
    expect((await search(store, nobody, { query: 'tea' })).hits).toEqual([]);
    expect((await getContext(store, nobody, { sessionId: 's' })).shortTerm).toEqual([]);
    for (const bad of ['', ' ', 'a b', 'x'.repeat(129), 'ümlaut', 'a/b', "o'neil", '\u0000']) {
      expect(() => spaceOf(bad)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
      expect(() => spaceOf('alice', bad)).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
    }
    expect(spaceOf('a.b:c@d-e_f')).toEqual({ userId: 'a.b:c@d-e_f', agentId: null });
    expect(spaceOf('x'.repeat(128)).userId).toHaveLength(128);
  });

  it('agents: each sees its own memories plus the shared ones; the user sees all', async () => {
    const { store, say } = await twoUsers();
    const helper: Space = { userId: 'alice', agentId: 'helper' };
    const coach: Space = { userId: 'alice', agentId: 'coach' };
    await remember(store, ALICE, { content: 'Alice is vegetarian' });
    await remember(store, helper, { content: 'Alice asked the helper about taxes' });
    await say(coach, 'c1', 'I like running marathons');
    expect(contents((await listMemories(store, helper)).rows)).toEqual([
      'Alice asked the helper about taxes',
      'Alice is vegetarian',
    ]);
    expect(contents((await listMemories(store, coach)).rows)).toEqual([
      'Alice is vegetarian',
      'User likes running marathons',
    ]);
    expect((await listMemories(store, ALICE)).total).toBe(3);
    expect((await search(store, helper, { query: 'running marathons' })).hits).toEqual([]);
    // The same fact said to an agent merges into the shared one it can see, not into another agent's.
    expect((await remember(store, helper, { content: 'Alice is vegetarian' })).action).toBe('merged');
    expect((await remember(store, coach, { content: 'Alice asked the helper about taxes' })).action).toBe('created');
  });

  it('GC capacity counts per user: a busy user never pushes out a quiet one', async () => {
    const { store } = await twoUsers({ mid: { capacity: 2, min_score: 0 } });
    for (const n of [1, 2, 3, 4]) await remember(store, BOB, { content: `Bob fact number ${n}` });
    await remember(store, ALICE, { content: 'Alice fact one' });
    const report = await runGc(store);
    expect(report.byReason.over_capacity).toBe(2);
    expect((await listMemories(store, ALICE)).total).toBe(1);
    expect((await listMemories(store, BOB)).total).toBe(2);
  });

  it("reflection is per user: one user's facts do not make another's week", async () => {
    const { store } = await twoUsers({ reflection: { min_facts: 3 } });
    for (const n of [1, 2, 3]) await remember(store, BOB, { content: `Bob did thing ${n}` });
    expect((await reflectionDue(store, BOB)).run).toBe(true);
    expect(await reflectionDue(store, ALICE)).toMatchObject({ run: false });
  });
});

describe('forgetUser', () => {
  it('leaves no text of the user in any table, the text indexes included (the file itself, FTS5 shadow tables and vec0: core-sqlite-only)', async () => {
    const { store, say } = await twoUsers();
    const marker = 'Xylophonist';
    await say(BOB, 's1', `My name is Zed ${marker} and I live in Quuxville`, `Zed ${marker}`);
    await say(BOB, 's2', `I love ${marker} music`, `Zed ${marker}`);
    await remember(store, BOB, { content: `${marker} is my password hint`, tags: [marker.toLowerCase()] });
    await say(ALICE, 's1', 'I love tea', 'Alice');
    const result = await forgetUser(store, { userId: 'bob', vacuum: true });
    expect(result).toMatchObject({ userId: 'bob', turns: 2, sessions: 2, vacuumed: true });
    expect(result.memories).toBeGreaterThanOrEqual(2);
    expect((await listUsers(store)).rows.map((u) => u.id)).toEqual(['alice']);
    expect((await listMemories(store, ALICE)).total).toBe(1);

    // Every table of the store, cell by cell (on Postgres the tsvector columns too).
    const found: string[] = [];
    for (const [table, rows] of await everyTableRows(store)) {
      for (const row of rows) {
        for (const cell of row) {
          const text = Buffer.isBuffer(cell) ? cell.toString('latin1') : String(cell);
          if (text.toLowerCase().includes(marker.toLowerCase()) || text.includes('Quuxville'))
            found.push(`${table}: ${text.slice(0, 80)}`);
          if (/\bbob\b/.test(text) && table !== 'sqlite_sequence') found.push(`${table}: ${text.slice(0, 80)}`);
        }
      }
    }
    expect(found).toEqual([]);
    await closeStore(store);
  });
});
