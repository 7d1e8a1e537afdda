// search(): lexical + structure + memories + entities fused by RRF, its filters, and its safety:
// any user string returns hits or an empty list, never an error, with FTS5 on and off.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it } from 'vitest';
import { SmError } from '../../server/core/kernel/errors.ts';
import { insertMemory, remember } from '../../server/core/memory/memories.ts';
import { updateMemory } from '../../server/core/memory/memory-edits.ts';
import { search } from '../../server/core/search/index.ts';
import { TINY_USER_ROWS } from '../../server/core/text-index/bm25.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { write, type Store } from '../../server/core/kernel/store.ts';
import { textIndexOf } from '../../server/core/text-index/text-index.ts';
import { COMMON_DF, tableRows } from '../../server/core/text-index/term-stats.ts';
import { lexicalTurns } from '../../server/core/search/lexical.ts';
import { conversation } from '../helpers/conversation.ts';
import { testStore } from '../helpers/store.ts';

const HOSTILE = [
  '"',
  '""',
  'AND OR NOT',
  'NOT',
  'col:x',
  'text:hiking',
  'turns_fts:x',
  '(((',
  ')))',
  '*',
  'hik*',
  '^hiking',
  'NEAR(a b, 3)',
  "'; drop table turns; --",
  '🙂🚀',
  'straße café naïve',
  '{x} [y] <z> \\ / | & ~ ` $',
  '\u0000\u0007',
  'hiking '.repeat(1500),
  'a'.repeat(10_240),
  Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' '),
];

describe('search', () => {
  it('finds turns and facts, with a fused score and per-signal ranks', async () => {
    const { store, say } = await conversation();
    await say('s1', 'Caroline', 'I went hiking in the Alps with my sister last weekend.');
    await say('s1', 'Melanie', 'That sounds lovely! I mostly paint at home these days.');
    await remember(store, DEFAULT_SPACE, { content: 'Caroline loves hiking in the mountains' });
    const { hits, signals } = await search(store, DEFAULT_SPACE, { query: 'hiking' });
    expect(signals).toContain('lexical');
    expect(hits.length).toBeGreaterThanOrEqual(2);
    const turn = hits.find((h) => h.kind === 'turn')!;
    expect(turn.text).toMatch(/hiking in the Alps/);
    expect(turn.ranks.lexical).toBe(1);
    expect(turn.score).toBeGreaterThan(0);
    expect(turn.turn?.name).toBe('Caroline');
    const fact = hits.find((h) => h.kind === 'fact')!;
    expect(fact.memory?.content).toBe('Caroline loves hiking in the mountains');
    expect(fact.ranks.lexical).not.toBeNull();
    // Fused scores are sorted and follow RRF: a rank-1 hit in one list scores 1/61 per unit weight.
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(turn.score).toBeLessThanOrEqual(2 / 61);
  });

  it('returns results or an empty list for hostile strings, never an error (FTS5 and LIKE)', async () => {
    for (const config of [{}, { fts: { enabled: false } }]) {
      const { store, say } = await conversation(config);
      await say('s1', 'Caroline', 'I went hiking with naïve café friends 🙂 (really) "quoted" AND more.');
      for (const query of HOSTILE) {
        const result = await search(store, DEFAULT_SPACE, { query, kinds: ['fact', 'reflection', 'turn'], limit: 20 });
        expect(Array.isArray(result.hits), query.slice(0, 20)).toBe(true);
      }
      // The words inside hostile strings are still searched as words.
      expect((await search(store, DEFAULT_SPACE, { query: 'text:hiking' })).hits.some((h) => h.kind === 'turn')).toBe(
        true,
      );
      expect((await search(store, DEFAULT_SPACE, { query: '"quoted" AND' })).hits.length).toBeGreaterThan(0);
      // FTS5 folds diacritics (remove_diacritics 2); the LIKE fallback matches them as written.
      expect((await search(store, DEFAULT_SPACE, { query: config.fts ? 'café' : 'cafe' })).hits.length).toBeGreaterThan(
        0,
      );
      // Case folds beyond ASCII either way.
      await say('s1', 'Melanie', 'MY DAUGHTER STARTED AT THE ÉCOLE MONTESSORI');
      expect((await search(store, DEFAULT_SPACE, { query: 'école', kinds: ['turn'] })).hits[0]?.text).toBe(
        'MY DAUGHTER STARTED AT THE ÉCOLE MONTESSORI',
      );
      expect((await search(store, DEFAULT_SPACE, { query: '(((' })).hits).toEqual([]);
    }
  });

  it('matches words with apostrophes as the index splits them (FTS5 and LIKE)', async () => {
    for (const config of [{}, { fts: { enabled: false } }]) {
      const { store, say } = await conversation(config);
      const met = await say('s1', 'Caroline', "I met Sarah O'Brien at the rock'n'roll night, didn't I?");
      await say('s1', 'Melanie', 'Nice, I stayed home with a book.');
      for (const query of ["O'Brien", 'Who is O’Brien?', "rock'n'roll", "Sarah O'Brien's night"]) {
        const { hits } = await search(store, DEFAULT_SPACE, { query, kinds: ['turn'] });
        expect(hits[0]?.id, `${query} ${JSON.stringify(config)}`).toBe(met.id);
      }
    }
  });

  // Postgres reads a small user's rows one by one and a large user's through the GIN index (its
  // `matching`): either way the newest matches of that user, and only theirs, even far back.
  it("finds the newest matching rows of a small and of a large user, and no one else's", async () => {
    const { store } = await testStore();
    const big = { userId: 'big', agentId: null };
    const small = { userId: 'small', agentId: null };
    const ids = await write(store, async () => {
      const first = await insertMemory(store, big, { content: 'Apple orchard in Normandy' });
      for (let i = 0; i < 620; i++) await insertMemory(store, big, { content: `Filler note number ${i}` });
      const late = await insertMemory(store, big, { content: 'Apple pie recipe' });
      const own = await insertMemory(store, small, { content: 'Apple juice on Sundays' });
      await insertMemory(store, small, { content: 'Nothing to see' });
      return { first: first.id, late: late.id, own: own.id };
    });
    const matched = async (space: typeof big) => {
      const source = textIndexOf(store).matching(store, space, {
        table: 'memories',
        words: ['apple'],
        join: 'any',
        limit: 20,
      })!;
      return (await store.sql.all<{ id: number }>(source.sql, source.params))
        .map((r) => Number(r.id))
        .sort((a, b) => b - a);
    };
    expect(await matched(big)).toEqual([ids.late, ids.first]);
    expect(await matched(small)).toEqual([ids.own]);
    // Once a search has counted the large user's rows, the same rows come by the shorter way.
    expect(await tableRows(store, big, 'memories')).toBeGreaterThan(600);
    expect(await matched(big)).toEqual([ids.late, ids.first]);
  });

  it('rejects bad filters with BAD_USER_INPUT', async () => {
    const { store } = await testStore();
    const bad = [
      { query: 'x', limit: 0 },
      { query: 'x', kinds: [] },
      { query: 'x', kinds: ['episode'] },
      { query: 'x', from: 10, to: 5 },
      { query: 'x', status: 'gone' },
      { query: 'x'.repeat(20_001) },
      { query: 42 },
    ];
    for (const input of bad) {
      let error: unknown;
      try {
        await search(store, DEFAULT_SPACE, input as never);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(input).slice(0, 60)).toBeInstanceOf(SmError);
      expect((error as SmError).code).toBe('BAD_USER_INPUT');
    }
  });

  it('filters by kind, session, time, tags, status and speaker', async () => {
    const { store, say, jump } = await conversation();
    const early = await say('s1', 'Caroline', 'We adopted a guinea pig named Oscar.');
    jump(10);
    const late = await say('s2', 'Melanie', 'Our guinea pig Oscar loves carrots.');
    const tagged = (
      await remember(store, DEFAULT_SPACE, { content: 'Oscar the guinea pig eats carrots', tags: ['pets'] })
    ).memory;
    const archived = (await remember(store, DEFAULT_SPACE, { content: 'Oscar the guinea pig was sold' })).memory;
    await updateMemory(store, DEFAULT_SPACE, archived.id, { status: 'archived' });
    const ids = async (input: Parameters<typeof search>[2]) =>
      (await search(store, DEFAULT_SPACE, input)).hits.map((h) => `${h.kind}:${h.id}`);

    expect((await ids({ query: 'guinea pig', kinds: ['turn'] })).sort()).toEqual(
      [`turn:${early.id}`, `turn:${late.id}`].sort(),
    );
    expect(await ids({ query: 'guinea pig', kinds: ['turn'], sessionIds: ['s2'] })).toEqual([`turn:${late.id}`]);
    expect(await ids({ query: 'guinea pig', kinds: ['turn'], excludeSessionId: 's2' })).toEqual([`turn:${early.id}`]);
    expect(await ids({ query: 'guinea pig', kinds: ['turn'], to: early.at })).toEqual([`turn:${early.id}`]);
    expect(await ids({ query: 'guinea pig', kinds: ['turn'], from: late.at })).toEqual([`turn:${late.id}`]);
    expect(await ids({ query: 'guinea pig', kinds: ['turn'], speakers: ['melanie'] })).toEqual([`turn:${late.id}`]);
    expect(await ids({ query: 'guinea pig', tags: ['pets'] })).toEqual([`fact:${tagged.id}`]);
    const facts = await ids({ query: 'guinea pig', kinds: ['fact'] });
    expect(facts).toContain(`fact:${tagged.id}`);
    expect(facts).not.toContain(`fact:${archived.id}`);
    expect(facts.every((id) => id.startsWith('fact:'))).toBe(true);
    expect(await ids({ query: 'guinea pig', kinds: ['fact'], status: 'archived' })).toEqual([`fact:${archived.id}`]);
  });

  it('reaches the answer turn through its neighbour (the question names the topic)', async () => {
    const { store, say } = await conversation();
    await say('s1', 'Melanie', 'How often do you and your family go to the climbing gym?');
    const answer = await say('s1', 'John', 'Three times a week; it keeps us on track.');
    for (let i = 0; i < 5; i++) await say('s1', 'Melanie', `Unrelated chatter number ${i} about the weather.`);
    const hits = (
      await search(store, DEFAULT_SPACE, {
        query: 'How often does John go to the climbing gym with his family?',
        kinds: ['turn'],
        limit: 3,
      })
    ).hits;
    expect(hits.map((h) => h.id)).toContain(answer.id);
  });

  it('finds a turn by stop words alone, past the rows a small user has read whole', async () => {
    // Postgres's text vectors leave stop words out ("who am I" matches nothing in the index).
    const { store } = await testStore();
    const said = await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's0',
      role: 'user',
      text: 'Who am I supposed to be at the party?',
    });
    for (let i = 0; i < TINY_USER_ROWS + 20; i++)
      await addTurn(store, DEFAULT_SPACE, {
        sessionId: `s${1 + Math.floor(i / 50)}`,
        role: 'user',
        text: `I planted tomato number ${i} in the garden.`,
      });
    const hits = (await search(store, DEFAULT_SPACE, { query: 'who am I', kinds: ['turn'], limit: 3 })).hits;
    expect(hits[0]?.id).toBe(said.turn.id);
  });

  it('matches a query of common words only by the rows that hold them all', { timeout: 60_000 }, async () => {
    // Both words are in more rows than COMMON_DF: ranking every row holding either is what made
    // such a query slow in a long history.
    const { store } = await testStore();
    const turn = (i: number, text: string) =>
      addTurn(store, DEFAULT_SPACE, { sessionId: `s${Math.floor(i / 100)}`, role: 'user', text });
    const both = [];
    for (let i = 0; i < COMMON_DF + 5; i++) {
      await turn(i, `I drank coffee number ${i}.`);
      await turn(i, `I read the morning paper number ${i}.`);
      if (i % 200 === 7) both.push((await turn(i, `Morning coffee on the porch, number ${i}.`)).turn.id);
    }
    const found = await lexicalTurns(store, DEFAULT_SPACE, ['morning', 'coffee'], [], 50);
    expect(found.map((c) => c.id).sort((a, b) => a - b)).toEqual(both);
    const hits = (await search(store, DEFAULT_SPACE, { query: 'morning coffee', kinds: ['turn'], limit: 3 })).hits;
    expect(hits.map((h) => h.id).sort((a, b) => a - b)).toEqual(both);
  });

  it('favours turns on a date the query names', async () => {
    const { store, say, jump } = await conversation();
    await say('s1', 'Gina', 'I painted a sunset today.');
    jump(30);
    const later = await say('s2', 'Gina', 'I painted a sunset again, with more orange.');
    const day = new Date(later.at).toISOString().slice(0, 10);
    const hits = (await search(store, DEFAULT_SPACE, { query: `What did Gina paint on ${day}?`, kinds: ['turn'] }))
      .hits;
    expect(hits[0]!.id).toBe(later.id);
  });

  it('ranks memories linked to an entity named in the query (entity signal)', async () => {
    const { store, say } = await conversation();
    const turn = await say('s1', 'Sam', 'Lunch was fine.');
    const memory = (await remember(store, DEFAULT_SPACE, { content: 'Lunch with the team went fine' })).memory;
    await linkEntity(store, 'Project Falcon', ['Falcon'], turn.id, memory.id);
    const { hits, signals } = await search(store, DEFAULT_SPACE, { query: 'what about falcon?' });
    expect(signals).toContain('entity');
    expect(hits.map((h) => `${h.kind}:${h.id}`).sort()).toEqual([`fact:${memory.id}`, `turn:${turn.id}`].sort());
    expect(hits.every((h) => h.ranks.entity === 1 && h.ranks.lexical === null)).toBe(true);
  });
});

async function linkEntity(store: Store, name: string, aliases: string[], turnId: number, memoryId: number) {
  const now = store.clock.now();
  const id = await store.sql.pluck<number>(
    'insert into entities (name, name_key, type, aliases, mention_count, created_at, updated_at) values (?, ?, ?, ?, 2, ?, ?) returning id',
    [name, name.toLowerCase(), 'project', JSON.stringify(aliases), now, now],
  );
  await store.sql.run('insert into turn_entities (turn_id, entity_id) values (?, ?)', [turnId, id!]);
  await store.sql.run('insert into memory_entities (memory_id, entity_id) values (?, ?)', [memoryId, id!]);
}
