import { DEFAULT_SPACE } from '../server/core/space.ts';
import { describe, expect, it } from 'vitest';
import { explain } from '../server/core/explain.ts';
import { extractFacts } from '../server/core/extraction/heuristics.ts';
import { detectPii } from '../server/core/extraction/pii.ts';
import { getMemory } from '../server/core/memories.ts';
import { listMemories } from '../server/core/memory-list.ts';
import { getContext } from '../server/core/context.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';
import { testStore, T0 } from './helpers/store.ts';

const facts = (text: string, subject?: string) => extractFacts(text, subject, T0).map((f) => f.content);

describe('heuristic rules', () => {
  it('covers identity, preferences, state changes, places, plans and time', () => {
    expect(facts('I like JRPGs and my name is Alex')).toEqual(['User likes JRPGs', "User's name is Alex"]);
    expect(facts("I'm 34. I'm a nurse and I work at St. Mary's")).toEqual(['User is 34 years old', 'User is a nurse', "User works at St. Mary's"]);
    expect(facts('My favorite color is blue')).toEqual(["User's favorite color is blue"]);
    expect(facts('I no longer like JRPGs')).toEqual(['User no longer likes JRPGs']);
    expect(facts("I don't play tennis anymore")).toEqual(['User no longer play tennis']);
    expect(facts('I quit smoking last year')).toEqual(['User quit smoking last year']);
    expect(facts('I started learning the piano')).toEqual(['User started learning the piano']);
    expect(facts('I moved to Lisbon')).toEqual(['User moved to Lisbon']);
    expect(facts("Next week I'm flying to Lisbon")).toEqual(['User is flying to Lisbon next week']);
    expect(facts('My birthday is March 3rd')).toEqual(["User's birthday is March 3rd"]);
    expect(facts('I went to a support group yesterday and it was powerful.', 'Caroline')).toEqual(['Caroline went to a support group yesterday']);
  });

  it('names the speaker as the subject and keeps the rule and slot', () => {
    const [fact] = extractFacts('I love hiking with my dog', 'Melanie', T0);
    expect(fact).toMatchObject({ subject: 'Melanie', slot: 'likes:hiking with my dog', polarity: 1, rule: 'preference.like', content: 'Melanie likes hiking with their dog' });
  });

  it('anchors relative time phrases at the turn time', () => {
    const [fact] = extractFacts('I ran a marathon two weeks ago', 'User', T0);
    expect(fact!.eventAt).toBe(T0 - 14 * 86_400_000);
  });

  it('ignores questions, small talk and false friends', () => {
    expect(facts('Do you like JRPGs?')).toEqual([]);
    expect(facts('Call me later!')).toEqual([]);
    expect(facts('What do you think about it?')).toEqual([]);
    expect(facts('Hey! Good to see you!')).toEqual([]);
  });
});

describe('pii detectors', () => {
  it('finds emails, phone numbers and street addresses, not dates or counts', () => {
    expect(detectPii('write to alex@example.com')).toEqual(['email']);
    expect(detectPii('call +1 (415) 555-0100')).toEqual(['phone']);
    expect(detectPii('I live at 221 Baker Street')).toEqual(['address']);
    expect(detectPii('on 8 May, 2023 at 10:30 I ran 5 km with 2 kids')).toEqual([]);
  });
});

describe('extraction on addTurn (heuristic path)', () => {
  const setup = (config = {}) => {
    const t = testStore({ extractor: { mode: 'heuristic' }, ...config });
    return { ...t, runtime: createRuntime(t.store, {}) };
  };
  const say = (runtime: ReturnType<typeof setup>['runtime'], text: string, extra: object = {}) =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text, ...extra });

  it('supersedes a name and a negated preference, and merges a repeated one', async () => {
    const { runtime, store } = setup();
    const first = await say(runtime, 'I like JRPGs and my name is Alex');
    expect(first.extracted.map((e) => [e.action, e.memory.content])).toEqual([
      ['created', 'User likes JRPGs'],
      ['created', "User's name is Alex"],
    ]);
    const alex = first.extracted[1]!.memory;
    const sam = await say(runtime, 'Actually, call me Sam');
    expect(sam.extracted.map((e) => [e.action, e.memory.content])).toEqual([
      ['created', "User's name is Sam"],
      ['superseded', "User's name is Alex"],
    ]);
    expect(getMemory(store, alex.id)).toMatchObject({ status: 'archived' });
    const samId = sam.extracted[0]!.memory.id;
    expect(explain(store, DEFAULT_SPACE, samId).supersedes).toEqual([alex.id]);
    expect(explain(store, DEFAULT_SPACE, samId).sources).toEqual([{ turnId: sam.turn.id, reason: 'conflict', rule: 'heuristic:identity.name' }]);
    expect(explain(store, DEFAULT_SPACE, alex.id).supersededBy).toEqual([samId]);
    expect(explain(store, DEFAULT_SPACE, alex.id).decisions[0]).toMatchObject({ action: 'superseded', detail: { reason: 'conflict', by: samId } });

    const jrpg = first.extracted[0]!.memory;
    const negation = await say(runtime, 'I no longer like JRPGs');
    expect(negation.extracted.map((e) => e.action)).toEqual(['created', 'superseded']);
    expect(getMemory(store, jrpg.id)!.status).toBe('archived');

    const again = await say(runtime, 'I really like JRPGs');
    expect(again.extracted[0]).toMatchObject({ action: 'created' });
    const repeat = await say(runtime, 'I really like JRPGs');
    expect(repeat.extracted).toMatchObject([{ action: 'merged', memory: { id: again.extracted[0]!.memory.id, hits: 1 } }]);
  });

  it('moves the home slot: "I live in Berlin" then "I moved to Lisbon"', async () => {
    const { runtime, store } = setup();
    const berlin = (await say(runtime, 'I live in Berlin')).extracted[0]!.memory;
    const lisbon = await say(runtime, 'I moved to Lisbon');
    expect(lisbon.extracted.map((e) => [e.action, e.memory.id])).toEqual([['created', lisbon.extracted[0]!.memory.id], ['superseded', berlin.id]]);
    expect(listMemories(store, DEFAULT_SPACE).rows.map((m) => m.content)).toEqual(['User moved to Lisbon']);
  });

  it('is idempotent in effect when the same turn is sent again', async () => {
    const { runtime, store } = setup();
    await say(runtime, 'My favorite food is ramen and I live in Osaka');
    await say(runtime, 'My favorite food is ramen and I live in Osaka');
    expect(listMemories(store, DEFAULT_SPACE).total).toBe(2);
    expect(listMemories(store, DEFAULT_SPACE).rows.every((m) => m.hits === 1)).toBe(true);
  });

  it('merges fuzzy duplicates over the Jaccard threshold and keeps distinct facts apart', async () => {
    const { runtime, store } = setup();
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', name: 'Caroline', text: 'I went to the LGBTQ support group in town yesterday' });
    const near = await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', name: 'Caroline', text: 'I went to the LGBTQ support group in the town' });
    expect(near.extracted[0]!.action).toBe('merged');
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', name: 'Caroline', text: 'I went to a pottery class' });
    expect(listMemories(store, DEFAULT_SPACE).total).toBe(2);
    // The same words from someone else are their own fact, not a second sighting of Caroline's.
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', name: 'Caroline', text: 'I went hiking with my sister in the Alps last weekend' });
    const melanie = await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's2', role: 'user', name: 'Melanie', text: 'I went hiking with my sister in the Alps last weekend!' });
    expect(melanie.extracted.map((e) => [e.action, e.memory.subject])).toEqual([['created', 'Melanie']]);
    expect(listMemories(store, DEFAULT_SPACE).total).toBe(4);
    // Words the index splits at an apostrophe do not hide a duplicate from the probe.
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's3', role: 'user', name: 'Caroline', text: "I met Sarah O'Brien and D'Angelo at the rock'n'roll night" });
    const again = await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's3', role: 'user', name: 'Caroline', text: "I met Sarah O'Brien and D'Angelo at a rock'n'roll night" });
    expect(again.extracted.map((e) => e.action)).toEqual(['merged']);
  });

  it('does not mine assistant turns, nor turns sent without extraction', async () => {
    const { runtime, store } = setup();
    await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'assistant', text: 'I like helping you and my name is Claude' });
    await say(runtime, 'I like tea', { autoExtract: false });
    expect(listMemories(store, DEFAULT_SPACE).total).toBe(0);
  });

  it('tags pii and keeps it out of context when configured', async () => {
    const { runtime, store } = setup({ context: { exclude_pii: true } });
    const result = await say(runtime, 'My email is alex@example.com and I like sushi');
    expect(result.extracted.map((e) => e.memory.tags)).toEqual([['pii'], ['preference']]);
    const context = getContext(store, DEFAULT_SPACE, { sessionId: 's1' });
    expect(context.midTerm.map((m) => m.content)).toEqual(['User likes sushi']);
    expect(context.markdown).not.toContain('example.com');
  });
});
