// The entity registry end to end: ingestTurn's fast NER, the durable accurate job, resolution
// rules (case, possessive, alias, first name), reads for the API, forget and archive.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropUnlinkedEntities, linkEntities, resolveEntity } from '../../server/core/entities/entities.ts';
import {
  entitiesForMemories,
  entitiesForTurns,
  findEntity,
  listEntities,
  memoriesByEntity,
  memoriesForEntity,
  turnsByEntity,
  turnsForEntity,
} from '../../server/core/reads/entity-reads.ts';
import { forget } from '../../server/core/memory/forget.ts';
import { listJobs } from '../../server/core/jobs/jobs.ts';
import { remember } from '../../server/core/memory/memories.ts';
import { updateMemory } from '../../server/core/memory/memory-edits.ts';
import { knownNames } from '../../server/core/entities/ner/known-entities.ts';
import { onChange, write } from '../../server/core/kernel/store.ts';
import { addTurn } from '../../server/core/turns/turns.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { countRows, runOnAnotherConnection, testStore } from '../helpers/store.ts';

async function setup(config: Record<string, unknown> = {}, path?: string) {
  const t = await testStore({ extractor: { mode: 'heuristic' }, ...config }, path);
  const runtime = await createRuntime(t.store, {});
  const say = (text: string, name: string | null = 'Sam', sessionId = 's1') =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role: 'user', name, text });
  const drain = () => drainJobs(t.store, jobHandlers(runtime));
  const entities = async () =>
    (await listEntities(t.store, DEFAULT_SPACE, { limit: 500 })).rows
      .map((e) => `${e.name}:${e.type}:${e.mentionCount}`)
      .sort();
  return { ...t, runtime, say, drain, entities };
}

describe('ingest: fast NER on the hot path, accurate NER in a durable job', () => {
  it('finds Alice Johnson, Paris, @bob, #apollo and the email, then reaches Alice from "Alice called me"', async () => {
    const { store, say, drain, entities } = await setup();
    const first = await say('Saw Alice Johnson in Paris with @bob about #apollo, mail alice@example.com');
    // Committed at once: regex entities and the speaker; the accurate pass is a queued job.
    expect(await entities()).toEqual([
      'Sam:person:1',
      'alice@example.com:email:1',
      'apollo:hashtag:1',
      'bob:mention:1',
    ]);
    expect((await listJobs(store)).map((j) => [j.type, j.payload])).toEqual([
      ['ner.accurate', { turnId: first.turn.id, userId: 'default' }],
    ]);

    expect(await drain()).toMatchObject({ ran: 1, done: 1 });
    expect(await entities()).toEqual([
      'Alice Johnson:person:1',
      'Paris:location:1',
      'Sam:person:1',
      'alice@example.com:email:1',
      'apollo:hashtag:1',
      'bob:mention:1',
    ]);
    expect(await store.sql.pluck('select enriched_at from turns where id = ?', [first.turn.id])).toBe(
      store.clock.now(),
    );

    // The known-names matcher links the first name on the hot path, before any job runs.
    const second = await say('Alice called me');
    const alice = (await findEntity(store, DEFAULT_SPACE, { name: 'Alice Johnson' }))!;
    expect(
      (await entitiesForTurns(store, [second.turn.id]))
        .get(second.turn.id)!
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Alice Johnson', 'Sam']);
    expect(alice).toMatchObject({ type: 'person', mentionCount: 2, aliases: ['Alice'] });
    await drain();
    expect((await findEntity(store, DEFAULT_SPACE, { id: alice.id }))!.mentionCount).toBe(2); // the accurate pass links nothing twice

    const third = await say("Alice's dog is sick");
    expect((await entitiesForTurns(store, [third.turn.id])).get(third.turn.id)!.map((e) => e.id)).toContain(alice.id);
    expect((await findEntity(store, DEFAULT_SPACE, { name: "alice's" }))!.id).toBe(alice.id);
    expect((await findEntity(store, DEFAULT_SPACE, { name: 'ALICE' }))!.id).toBe(alice.id);
    expect(await countRows(store, "entities where type = 'person'")).toBe(2); // Sam and Alice Johnson, no second Alice
  });

  it('links memories extracted from a turn, and lookup by name returns the turns and the memories', async () => {
    const { store, say, drain } = await setup();
    const met = await say('I met Alice Johnson in Paris yesterday');
    const works = await say('I work at Google with Alice Johnson');
    expect(met.extracted).toHaveLength(1);
    // Hot path: the speaker reaches the new memory ("Sam met...") even on Sam's first turn, and
    // so does the date "yesterday" was resolved to ("Sam met Alice Johnson in Paris on 31 December 2025").
    expect(
      (await entitiesForMemories(store, [met.extracted[0]!.memory.id]))
        .get(met.extracted[0]!.memory.id)!
        .map((e) => e.name),
    ).toEqual(['Sam', '31 December 2025']);
    await drain();

    const alice = (await findEntity(store, DEFAULT_SPACE, { name: 'alice johnson' }))!;
    const memoryIds = [met, works].map((r) => r.extracted[0]!.memory.id);
    expect(await turnsForEntity(store, DEFAULT_SPACE, alice.id)).toEqual({
      rows: [works.turn, met.turn].map((t) => ({ ...t, enrichedAt: store.clock.now() })),
      total: 2,
    });
    expect((await memoriesForEntity(store, DEFAULT_SPACE, alice.id)).rows.map((m) => m.id).sort()).toEqual(
      memoryIds.sort(),
    );
    expect(alice.mentionCount).toBe(4); // two turns + two memories
    const byMemory = await entitiesForMemories(store, memoryIds);
    expect(
      byMemory
        .get(memoryIds[0]!)!
        .map((e) => e.name)
        .sort(),
    ).toEqual(['31 December 2025', 'Alice Johnson', 'Paris', 'Sam']);
    expect(
      byMemory
        .get(memoryIds[1]!)!
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Alice Johnson', 'Google', 'Sam']);
    expect(await countRows(store, 'memories', 'enriched_at is null')).toBe(0);
  });

  it('publishes entity events after commit; a rolled-back entity never reaches the known-names index', async () => {
    const { store, say } = await setup();
    const seen: string[] = [];
    onChange(store, (e) => e.type === 'entity' && seen.push(`${e.action}:${e.entityId}`));
    await say('Hi @bob');
    expect(seen.sort()).toEqual(['created:1', 'created:2', 'linked:1', 'linked:2']);

    await expect(
      write(store, async () => {
        await resolveEntity(store, DEFAULT_SPACE, { name: 'Ghost Person', type: 'person' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(seen).toHaveLength(4);
    expect((await knownNames(store, DEFAULT_SPACE)).match('Ghost Person was here')).toEqual([]);
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'Ghost Person' })).toBeUndefined();
  });

  it('the known-names index sees entities another connection (a CLI next to the server) writes', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sm-entities-')), 'memory.db');
    const { store, say } = await setup({}, path);
    await say('Hello');
    expect((await knownNames(store, DEFAULT_SPACE)).match('Zelda Fitzgerald wrote')).toEqual([]);
    await runOnAnotherConnection(
      store,
      path,
      "insert into entities (name, name_key, type, aliases, mention_count, created_at, updated_at) values ('Zelda Fitzgerald', 'zelda fitzgerald', 'person', '[]', 1, 0, 0)",
    );
    expect((await knownNames(store, DEFAULT_SPACE)).match('Zelda wrote').map((m) => m.text)).toEqual(['Zelda']);
    const turn = await say('Zelda wrote again');
    expect(
      (await entitiesForTurns(store, [turn.turn.id]))
        .get(turn.turn.id)!
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Sam', 'Zelda Fitzgerald']);
  });

  it('skips NER entirely when ner.enabled is false, and queues no accurate job without an accurate provider', async () => {
    const off = await setup({ ner: { enabled: false } });
    await off.say('Saw Alice Johnson with @bob');
    expect(await off.entities()).toEqual([]);
    expect(await listJobs(off.store)).toEqual([]);

    const regexOnly = await setup({ ner: { providers: ['regex', 'known'] } });
    await regexOnly.say('Saw Alice Johnson with @bob');
    expect(await regexOnly.entities()).toEqual(['Sam:person:1', 'bob:mention:1']);
    expect(await listJobs(regexOnly.store)).toEqual([]);
  });
});

describe('registry resolution', () => {
  it('normalises case and possessives; a first name reaches the one person with it, else a new entity', async () => {
    const { store } = await testStore();
    await write(store, async () => {
      const alice = (await resolveEntity(store, DEFAULT_SPACE, { name: 'Alice Johnson', type: 'person' }))!.entity;
      expect((await resolveEntity(store, DEFAULT_SPACE, { name: 'alice johnson', type: 'person' }))!.entity.id).toBe(
        alice.id,
      );
      expect(await resolveEntity(store, DEFAULT_SPACE, { name: 'Alice', type: 'person' })).toMatchObject({
        created: false,
        entity: { id: alice.id, aliases: ['Alice'] },
      });
      // Same name, other type: another entity (Paris the place is not Paris the person).
      expect((await resolveEntity(store, DEFAULT_SPACE, { name: 'Alice', type: 'organization' }))!.created).toBe(true);
      await resolveEntity(store, DEFAULT_SPACE, { name: 'Bob Stone', type: 'person' });
      await resolveEntity(store, DEFAULT_SPACE, { name: 'Bob Marsh', type: 'person' });
      expect(await resolveEntity(store, DEFAULT_SPACE, { name: 'Bob', type: 'person' })).toMatchObject({
        created: true,
        entity: { name: 'Bob' },
      });
    });
  });

  it('a full name upgrades the lone first name seen before, so the order does not matter', async () => {
    const { store } = await testStore();
    await write(store, async () => {
      const carol = (await resolveEntity(store, DEFAULT_SPACE, { name: 'Carol', type: 'person' }))!.entity;
      const full = (await resolveEntity(store, DEFAULT_SPACE, { name: 'Carol Danvers', type: 'person' }))!;
      expect(full).toMatchObject({
        created: false,
        entity: { id: carol.id, name: 'Carol Danvers', nameKey: 'carol danvers', aliases: ['Carol'] },
      });
      expect((await resolveEntity(store, DEFAULT_SPACE, { name: "Carol's", type: 'person' }))!.entity.id).toBe(
        carol.id,
      );
    });
  });

  it('a short form of one known first name is an alias ("Mel" for "Melanie"), whichever comes first; two candidates, no guess', async () => {
    const { store } = await testStore();
    await write(store, async () => {
      const melanie = (await resolveEntity(store, DEFAULT_SPACE, { name: 'Melanie', type: 'person' }))!.entity;
      expect(await resolveEntity(store, DEFAULT_SPACE, { name: 'Mel', type: 'person' })).toMatchObject({
        created: false,
        entity: { id: melanie.id, name: 'Melanie', aliases: ['Mel'] },
      });
      // The short form first: the full name takes over the entity and keeps the short form.
      const jon = (await resolveEntity(store, DEFAULT_SPACE, { name: 'Jon', type: 'person' }))!.entity;
      expect(await resolveEntity(store, DEFAULT_SPACE, { name: 'Jonathan', type: 'person' })).toMatchObject({
        created: false,
        entity: { id: jon.id, name: 'Jonathan', aliases: ['Jon'] },
      });
      // "Sam" could be Samantha or Samuel: a person of its own.
      await resolveEntity(store, DEFAULT_SPACE, { name: 'Samantha', type: 'person' });
      await resolveEntity(store, DEFAULT_SPACE, { name: 'Samuel', type: 'person' });
      expect(await resolveEntity(store, DEFAULT_SPACE, { name: 'Sam', type: 'person' })).toMatchObject({
        created: true,
        entity: { name: 'Sam' },
      });
      // Too short to be anyone's short form.
      expect((await resolveEntity(store, DEFAULT_SPACE, { name: 'Me', type: 'person' }))!.created).toBe(true);
    });
  });

  it('counts each link once: linking the same text again changes nothing', async () => {
    const { store } = await testStore();
    const turnId = (await addTurn(store, DEFAULT_SPACE, { sessionId: 's', role: 'user', text: 'x' })).turn.id;
    await write(store, async () => {
      const mentions = [
        { name: 'Zoe', type: 'person' as const },
        { name: "Zoe's", type: 'person' as const },
        { name: 'apollo', type: 'hashtag' as const },
      ];
      const first = await linkEntities(store, DEFAULT_SPACE, { turnId }, mentions);
      expect(first.entities.map((e) => [e.name, e.mentionCount])).toEqual([
        ['Zoe', 1],
        ['apollo', 1],
      ]);
      expect(first.added).toBe(2);
      expect((await linkEntities(store, DEFAULT_SPACE, { turnId }, mentions)).added).toBe(0);
    });
    expect((await listEntities(store, DEFAULT_SPACE)).rows.map((e) => e.mentionCount)).toEqual([1, 1]);
  });

  it("a known speaker's turn links to that speaker; on Postgres the turn's own statement reads them (no lookup of its own)", async () => {
    const { store, say, entities } = await setup();
    await say('Hello there', 'Sam');
    await say('Hello there', 'Kim', 's2');
    const sam = (await findEntity(store, DEFAULT_SPACE, { name: 'Sam' }))!;
    const texts: string[] = [];
    const sql = store.sql;
    const seen = <F extends (text: string, ...rest: never[]) => unknown>(fn: F) =>
      ((text: string, ...rest: never[]) => (texts.push(text), fn.call(sql, text, ...rest))) as F;
    Object.assign(sql, {
      values: seen(sql.values),
      row: seen(sql.row),
      all: seen(sql.all),
      get: seen(sql.get),
      run: seen(sql.run),
    });
    const { turn } = await say('Lunch was good today', 'SAM');
    const lookups = texts.filter((t) => /from entities where user_id = \? and name_key = \?/.test(t));
    if (store.sql.dialect === 'postgres')
      expect(lookups.map((t) => /^with .*insert into turns/s.test(t))).toEqual([true]);
    else expect(lookups.length).toBeGreaterThan(0);
    expect((await entitiesForTurns(store, [turn.id])).get(turn.id)!.map((e) => e.id)).toEqual([sam.id]);
    // A speaker not known yet is created and linked, as before.
    const { turn: first } = await say('Hi all', 'Noor', 's3');
    expect((await entitiesForTurns(store, [first.id])).get(first.id)!.map((e) => e.name)).toEqual(['Noor']);
    expect(await entities()).toContain('Sam:person:2');
  });
});

describe('reads', () => {
  it('lists with q, type and paging; batches pages per entity with totals', async () => {
    const { store, say, drain } = await setup();
    for (let i = 1; i <= 3; i++) await say(`Planning #apollo step ${i} with @bob`);
    await say('#zeus is separate');
    await drain();
    expect((await listEntities(store, DEFAULT_SPACE, { q: 'APOL' })).rows.map((e) => e.name)).toEqual(['apollo']);
    expect(await listEntities(store, DEFAULT_SPACE, { type: 'mention' })).toMatchObject({
      total: 1,
      rows: [{ name: 'bob', mentionCount: 3 }],
    });
    const page = await listEntities(store, DEFAULT_SPACE, { limit: 2, offset: 1 });
    expect(page.total).toBe(4);
    expect(page.rows.map((e) => e.name)).toEqual(['apollo', 'bob']);

    const apollo = (await findEntity(store, DEFAULT_SPACE, { name: '#apollo' }))!;
    const zeus = (await findEntity(store, DEFAULT_SPACE, { name: 'zeus', type: 'hashtag' }))!;
    const turns = await turnsByEntity(store, DEFAULT_SPACE, [apollo.id, zeus.id, 999], { limit: 2 });
    expect(turns.get(apollo.id)!.total).toBe(3);
    expect(turns.get(apollo.id)!.rows.map((t) => t.text)).toEqual([
      'Planning #apollo step 3 with @bob',
      'Planning #apollo step 2 with @bob',
    ]);
    expect(turns.get(zeus.id)!.rows).toHaveLength(1);
    expect(turns.has(999)).toBe(false);
    expect(await turnsForEntity(store, DEFAULT_SPACE, apollo.id, { limit: 2, offset: 5 })).toEqual({
      rows: [],
      total: 3,
    });
    expect((await memoriesByEntity(store, DEFAULT_SPACE, [apollo.id])).size).toBe(0);
  });

  it('bad input is BAD_USER_INPUT and names the field', async () => {
    const { store } = await testStore();
    const code = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (error) {
        return [(error as { code?: string }).code, (error as Error).message];
      }
      return null;
    };
    expect(await code(() => findEntity(store, DEFAULT_SPACE, {} as never))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('give an id, or a name'),
    ]);
    expect(await code(() => findEntity(store, DEFAULT_SPACE, { name: '!!!' }))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('name:'),
    ]);
    expect(await code(() => findEntity(store, DEFAULT_SPACE, { name: 'x', type: 'planet' as never }))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('type: must be one of'),
    ]);
    expect(await code(() => listEntities(store, DEFAULT_SPACE, { limit: 0 }))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('limit'),
    ]);
    expect(await code(() => memoriesForEntity(store, DEFAULT_SPACE, 1, { status: 'gone' as never }))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('status'),
    ]);
    expect(await code(() => turnsByEntity(store, DEFAULT_SPACE, [-1]))).toEqual([
      'BAD_USER_INPUT',
      expect.stringContaining('0'),
    ]);
  });
});

describe('forget and archive keep the registry consistent', () => {
  it('archive keeps links; forget removes junction rows, lowers counts and drops entities nothing mentions', async () => {
    const { store, say, drain } = await setup();
    const a = await say('I met Alice Johnson in Paris yesterday');
    const b = await say('Alice Johnson likes #tea');
    await drain();
    const alice = (await findEntity(store, DEFAULT_SPACE, { name: 'Alice Johnson' }))!;
    const memory = a.extracted[0]!.memory;
    expect(alice.mentionCount).toBe(3); // two turns + the memory "Sam met Alice Johnson in Paris yesterday"

    await updateMemory(store, DEFAULT_SPACE, memory.id, { status: 'archived' });
    expect((await findEntity(store, DEFAULT_SPACE, { id: alice.id }))!.mentionCount).toBe(3);
    expect((await memoriesForEntity(store, DEFAULT_SPACE, alice.id)).total).toBe(0);
    expect(
      (await memoriesForEntity(store, DEFAULT_SPACE, alice.id, { status: 'archived' })).rows.map((m) => m.id),
    ).toEqual([memory.id]);

    await forget(store, DEFAULT_SPACE, { id: memory.id });
    expect((await findEntity(store, DEFAULT_SPACE, { id: alice.id }))!.mentionCount).toBe(2);
    expect(await countRows(store, `memory_entities where memory_id = ${memory.id}`)).toBe(0);

    await forget(store, DEFAULT_SPACE, { text: 'tea' });
    expect((await findEntity(store, DEFAULT_SPACE, { id: alice.id }))!.mentionCount).toBe(1);
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'tea', type: 'hashtag' })).toBeUndefined(); // only the forgotten turn named it
    expect(await countRows(store, `turn_entities where turn_id = ${b.turn.id}`)).toBe(0);

    await forget(store, DEFAULT_SPACE, { text: 'alice' });
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'Alice Johnson' })).toBeUndefined();
    expect((await knownNames(store, DEFAULT_SPACE)).match('Alice Johnson called')).toEqual([]);
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'Sam' })).toBeUndefined();
    expect(await countRows(store, 'entities', 'mention_count < 0')).toBe(0);
  });

  it('mention counts never go below zero, and dropping spares linked entities', async () => {
    const { store, say } = await setup();
    const turn = await say('Ping @bob');
    const bob = (await findEntity(store, DEFAULT_SPACE, { name: '@bob' }))!;
    await store.sql.run('update entities set mention_count = 0 where id = ?', [bob.id]);
    await write(store, async () => expect(await dropUnlinkedEntities(store, [bob.id])).toEqual([]));
    await forget(store, DEFAULT_SPACE, { text: 'ping' });
    expect(await countRows(store, `turns where id = ${turn.turn.id}`)).toBe(0);
    expect(await store.sql.get('select min(mention_count) as m from entities')).toEqual({ m: null });
  });

  it('remember does not link on its own; enrichment picks such memories up (see entity-enrichment)', async () => {
    const { store } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'Alice Johnson lives in Paris' });
    expect((await entitiesForMemories(store, [memory.id])).size).toBe(0);
  });
});

describe('remember', () => {
  it('links the entities an explicit fact names at once', async () => {
    const { store } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'Email alice@example.com about #apollo' });
    const names = (await entitiesForMemories(store, [memory.id]))
      .get(memory.id)
      ?.map((e) => `${e.type}:${e.name}`)
      .sort();
    expect(names).toEqual(['email:alice@example.com', 'hashtag:apollo']);
  });
});
