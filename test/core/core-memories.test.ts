import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it, vi } from 'vitest';
import {
  entities,
  memoryEntities,
  memoryEvents,
  memoryRelations,
  memorySources,
  turnEntities,
} from '../../drizzle/schema.ts';
import { explain } from '../../server/core/memory/explain.ts';
import { forget } from '../../server/core/memory/forget.ts';
import { getMemory, linkSource, remember } from '../../server/core/memory/memories.ts';
import { confirmMemory, correctMemory, updateMemory } from '../../server/core/memory/memory-edits.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { addTurn, shortTermWindow } from '../../server/core/turns/turns.ts';
import { getContext } from '../../server/core/context/context.ts';
import { assembleContext } from '../../server/services/context.ts';
import { onChange } from '../../server/core/kernel/store.ts';
import { countRows, testStore, textIndexIds } from '../helpers/store.ts';

describe('remember and merge', () => {
  it('merges an exact duplicate after normalising case and punctuation', async () => {
    const { store, advanceDays } = await testStore();
    const first = await remember(store, DEFAULT_SPACE, { content: 'User likes JRPGs', tags: ['games'] });
    advanceDays(1);
    const second = await remember(store, DEFAULT_SPACE, {
      content: '  user LIKES jrpgs!!',
      importance: 1,
      tags: ['hobby'],
    });
    expect(first.action).toBe('created');
    expect(second).toMatchObject({ action: 'merged', memory: { id: first.memory.id, hits: 1, importance: 1 } });
    expect(second.memory.tags).toEqual(['games', 'hobby']);
    expect(second.memory.lastSeenAt).toBeGreaterThan(first.memory.lastSeenAt);
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(1);
    expect((await explain(store, DEFAULT_SPACE, first.memory.id)).decisions.map((d) => d.action)).toEqual([
      'merged',
      'created',
    ]);
  });

  it('rejects bad input and writes nothing', async () => {
    const { store } = await testStore();
    await expect(remember(store, DEFAULT_SPACE, { content: '   ' })).rejects.toThrowError(/content: must not be empty/);
    await expect(remember(store, DEFAULT_SPACE, { content: 'x', importance: 3 })).rejects.toThrowError(/importance/);
    await expect(updateMemory(store, DEFAULT_SPACE, 99, { content: 'y' })).rejects.toThrowError(/memory 99 not found/);
    expect(await countRows(store, 'memories')).toBe(0);
    expect(await countRows(store, 'memory_events')).toBe(0);
  });

  it('publishes change events only after commit', async () => {
    const { store } = await testStore();
    const seen: string[] = [];
    onChange(store, (e) => seen.push(e.type === 'memory' ? e.action : e.type));
    await remember(store, DEFAULT_SPACE, { content: 'User likes tea' });
    await remember(store, DEFAULT_SPACE, { content: 'User likes tea' });
    await expect(remember(store, DEFAULT_SPACE, { content: '' })).rejects.toThrow();
    expect(seen).toEqual(['created', 'merged']);
  });
});

describe('update, confirm, correct', () => {
  it('keeps FTS in sync when content changes and archives/restores with a logged decision', async () => {
    const { store } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User drives a Volvo' });
    expect(await textIndexIds(store, 'memories', 'volvo')).toEqual([memory.id]);
    await updateMemory(store, DEFAULT_SPACE, memory.id, { content: 'User drives a Saab' });
    expect(await textIndexIds(store, 'memories', 'volvo')).toEqual([]);
    expect(await textIndexIds(store, 'memories', 'saab')).toEqual([memory.id]);
    expect((await listMemories(store, DEFAULT_SPACE, { q: 'saab' })).rows.map((m) => m.id)).toEqual([memory.id]);
    await updateMemory(store, DEFAULT_SPACE, memory.id, { status: 'archived' });
    expect(await getMemory(store, memory.id)).toMatchObject({ status: 'archived' });
    await updateMemory(store, DEFAULT_SPACE, memory.id, { status: 'active' });
    expect(await getMemory(store, memory.id)).toMatchObject({ status: 'active', validUntil: null });
    expect((await explain(store, DEFAULT_SPACE, memory.id)).decisions.map((d) => d.action)).toEqual([
      'restored',
      'archived',
      'updated',
      'created',
    ]);
  });

  it('confirm protects; correct archives the old fact and supersedes it', async () => {
    const { store } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User lives in Berlin' });
    expect(await confirmMemory(store, DEFAULT_SPACE, memory.id)).toMatchObject({ decayRate: 0, confidence: 1 });
    expect((await explain(store, DEFAULT_SPACE, memory.id)).protected).toBe(true);
    const { old, memory: replacement } = await correctMemory(store, DEFAULT_SPACE, memory.id, 'User lives in Lisbon');
    expect(old.status).toBe('archived');
    expect((await explain(store, DEFAULT_SPACE, replacement.id)).supersedes).toEqual([memory.id]);
    expect((await explain(store, DEFAULT_SPACE, memory.id)).supersededBy).toEqual([replacement.id]);
    expect((await explain(store, DEFAULT_SPACE, memory.id)).decisions[0]).toMatchObject({
      action: 'superseded',
      detail: { by: replacement.id },
    });
  });
});

describe('search paths', () => {
  it('uses FTS5 when enabled and LIKE when disabled, with the same results', async () => {
    for (const enabled of [true, false]) {
      const { store } = await testStore({ fts: { enabled } });
      await remember(store, DEFAULT_SPACE, { content: 'User plays the cello on Sundays' });
      await remember(store, DEFAULT_SPACE, { content: 'User dislikes jazz' });
      expect((await listMemories(store, DEFAULT_SPACE, { q: 'CELLO sundays' })).rows.map((m) => m.content)).toEqual([
        'User plays the cello on Sundays',
      ]);
      expect((await listMemories(store, DEFAULT_SPACE, { q: 'cello jazz' })).total).toBe(0);
      // Hostile text is plain words on both paths, never a syntax error.
      expect(
        (await listMemories(store, DEFAULT_SPACE, { q: '"jazz" OR (NEAR col:x *' })).rows.map((m) => m.content),
      ).toEqual([]);
      expect((await listMemories(store, DEFAULT_SPACE, { q: 'dislikes "jazz"' })).total).toBe(1);
      expect((await listMemories(store, DEFAULT_SPACE, { q: '%' })).total).toBe(0);
    }
  });

  it('keeps turn FTS in sync on insert and delete', async () => {
    const { store } = await testStore();
    const { turn } = await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      text: 'Flying to Lisbon next week',
    });
    expect(await textIndexIds(store, 'turns', 'lisbon')).toEqual([turn.id]);
    await forget(store, DEFAULT_SPACE, { text: 'lisbon' });
    expect(await textIndexIds(store, 'turns', 'lisbon')).toEqual([]);
  });
});

describe('forget', () => {
  it('removes every trace: row, text index entry, links, junction rows, text-bearing log entries (the legacy vector table: core-sqlite-only)', async () => {
    // Links are made by hand below, so that every kind of row is there to be removed.
    const { store } = await testStore({ ner: { enabled: false } });
    const { turn } = await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      text: 'My email is alex@example.com',
    });
    const { memory } = await remember(store, DEFAULT_SPACE, {
      content: 'User email is alex@example.com',
      tags: ['pii'],
    });
    const other = (await remember(store, DEFAULT_SPACE, { content: 'User likes tea' })).memory;
    await linkSource(store, memory.id, { turnId: turn.id, reason: 'extracted', rule: 'identity.email' });
    await store.db
      .insert(memoryRelations)
      .values({ fromId: other.id, toId: memory.id, kind: 'derived_from', at: 0 })
      .run();
    const entity = await store.db
      .insert(entities)
      .values({
        name: 'alex@example.com',
        nameKey: 'alex@example.com',
        type: 'email',
        mentionCount: 2,
        createdAt: 0,
        updatedAt: 0,
      })
      .returning()
      .get();
    await store.db.insert(memoryEntities).values({ memoryId: memory.id, entityId: entity.id }).run();
    await store.db.insert(turnEntities).values({ turnId: turn.id, entityId: entity.id }).run();

    const result = await forget(store, DEFAULT_SPACE, { text: 'alex@example.com' });
    expect(result).toEqual({ memoryIds: [memory.id], turnIds: [turn.id] });
    expect(await getMemory(store, memory.id)).toBeUndefined();
    expect((await listMemories(store, DEFAULT_SPACE, { q: 'alex' })).total).toBe(0);
    expect((await listMemories(store, DEFAULT_SPACE, { q: 'alex', status: 'archived' })).total).toBe(0);
    expect(await textIndexIds(store, 'memories', 'alex')).toEqual([]);
    expect(await textIndexIds(store, 'turns', 'alex')).toEqual([]);
    expect(await store.db.select().from(memorySources).all()).toEqual([]);
    expect(await store.db.select().from(memoryRelations).all()).toEqual([]);
    expect(await store.db.select().from(memoryEntities).all()).toEqual([]);
    expect(await store.db.select().from(turnEntities).all()).toEqual([]);
    // Nothing mentions it any more: the forgotten name leaves the entity registry too.
    expect(await store.db.select().from(entities).all()).toEqual([]);
    const log = (await store.db.select().from(memoryEvents).all()).filter((e) => e.memoryId === memory.id);
    expect(log.map((e) => e.action)).toEqual(['deleted']);
    expect(JSON.stringify(log)).not.toContain('alex');
    expect(await getMemory(store, other.id)).toBeDefined();
  });

  it('matches whole words only and needs exactly one of id or text', async () => {
    const { store } = await testStore();
    await remember(store, DEFAULT_SPACE, { content: 'Alexander is my cousin' });
    expect(await forget(store, DEFAULT_SPACE, { text: 'Alex' })).toEqual({ memoryIds: [], turnIds: [] });
    await expect(forget(store, DEFAULT_SPACE, {})).rejects.toThrowError(/exactly one of id or text/);
    await expect(forget(store, DEFAULT_SPACE, { id: 5 })).rejects.toThrowError(/not found/);
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(1);
  });
});

describe('turns and context', () => {
  it('keeps a short-term window of the last 100 turns and all history', async () => {
    const { store, advanceDays } = await testStore();
    for (let i = 0; i < 105; i++) {
      await addTurn(store, DEFAULT_SPACE, { sessionId: 's1', role: i % 2 ? 'assistant' : 'user', text: `turn ${i}` });
      advanceDays(0.001);
    }
    const window = await shortTermWindow(store, DEFAULT_SPACE, 's1');
    expect(window).toHaveLength(100);
    expect(window[0]!.text).toBe('turn 5');
    expect(window.at(-1)!.text).toBe('turn 104');
    expect(await countRows(store, 'turns')).toBe(105);
    expect((await getContext(store, DEFAULT_SPACE, { sessionId: 's1' })).shortTerm).toHaveLength(100);
  });

  it('orders imported turns by their own time and rejects bad turns', async () => {
    const { store } = await testStore();
    await addTurn(store, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text: 'later', at: Date.UTC(2024, 1, 1) });
    await addTurn(store, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'user',
      name: 'Caroline',
      text: 'earlier',
      at: Date.UTC(2024, 0, 1),
    });
    expect((await shortTermWindow(store, DEFAULT_SPACE, 's1')).map((t) => t.text)).toEqual(['earlier', 'later']);
    await expect(
      addTurn(store, DEFAULT_SPACE, { sessionId: 's1', role: 'bot' as 'user', text: 'x' }),
    ).rejects.toThrowError(/role/);
    await expect(addTurn(store, DEFAULT_SPACE, { sessionId: '', role: 'user', text: 'x' })).rejects.toThrowError(
      /sessionId/,
    );
    expect(await countRows(store, 'turns')).toBe(2);
  });

  it('gives top memories by score, counts the retrieval as access, and can hide pii', async () => {
    const { store } = await testStore({ context: { exclude_pii: true } });
    await remember(store, DEFAULT_SPACE, { content: 'User likes tea', importance: 1 });
    await remember(store, DEFAULT_SPACE, { content: 'User phone is 555-0100', tags: ['pii'] });
    await remember(store, DEFAULT_SPACE, { content: 'User has a dog' });
    const context = await assembleContext({ store, llm: null }, DEFAULT_SPACE, { sessionId: 's9', k: 5 });
    expect(context.midTerm.map((m) => m.content)).toEqual(['User likes tea', 'User has a dog']);
    expect(context.markdown).toContain('- User likes tea');
    expect(context.markdown).not.toContain('555');
    // Access is written just after the read, on its own (a network round trip or more on Postgres).
    await vi.waitFor(async () =>
      expect((await listMemories(store, DEFAULT_SPACE, { q: 'tea' })).rows[0]!.accessCount).toBe(1),
    );
  });
});
