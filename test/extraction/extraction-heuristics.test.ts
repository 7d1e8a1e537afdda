import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it } from 'vitest';
import { explain } from '../../server/core/memory/explain.ts';
import { extractFacts } from '../../server/core/extraction/heuristics.ts';
import { detectPii } from '../../server/core/text/pii.ts';
import { getMemory, insertMemory } from '../../server/core/memory/memories.ts';
import { write } from '../../server/core/kernel/store.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { getContext } from '../../server/core/context/context.ts';
import { runDecay } from '../../server/core/memory/decay.ts';
import { findEntity, memoriesForEntity } from '../../server/core/reads/entity-reads.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore, T0 } from '../helpers/store.ts';

const facts = (text: string, subject?: string) => extractFacts(text, subject, T0).map((f) => f.content);

describe('heuristic rules', () => {
  it('covers identity, preferences, state changes, places, plans and time', () => {
    expect(facts('I like JRPGs and my name is Alex')).toEqual(['User likes JRPGs', "User's name is Alex"]);
    expect(facts("I'm 34. I'm a nurse and I work at St. Mary's")).toEqual([
      'User is 34 years old',
      'User is a nurse',
      "User works at St. Mary's",
    ]);
    expect(facts('My favorite color is blue')).toEqual(["User's favorite color is blue"]);
    expect(facts('I no longer like JRPGs')).toEqual(['User no longer likes JRPGs']);
    expect(facts("I don't play tennis anymore")).toEqual(['User no longer plays tennis']);
    expect(facts('I quit smoking last year')).toEqual(['User quit smoking in 2025']);
    expect(facts('I started learning the piano')).toEqual(['User started learning the piano']);
    expect(facts('I moved to Lisbon')).toEqual(['User moved to Lisbon']);
    expect(facts("Next week I'm flying to Lisbon")).toEqual(['User is flying to Lisbon in the week of 5 January 2026']);
    expect(facts('My birthday is March 3rd')).toEqual(["User's birthday is March 3rd"]);
    expect(facts('I went to a support group yesterday and it was powerful.', 'Caroline')).toEqual([
      'Caroline went to a support group on 31 December 2025',
    ]);
  });

  it('names the speaker as the subject and keeps the rule and slot', () => {
    const [fact] = extractFacts('I love hiking with my dog', 'Melanie', T0);
    expect(fact).toMatchObject({
      subject: 'Melanie',
      slot: 'likes:hiking with my dog',
      polarity: 1,
      rule: 'preference.like',
      content: 'Melanie loves hiking with their dog',
    });
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
  const setup = async (config = {}) => {
    const t = await testStore({ extractor: { mode: 'heuristic' }, ...config });
    return { ...t, runtime: await createRuntime(t.store, {}) };
  };
  const say = (runtime: Awaited<ReturnType<typeof setup>>['runtime'], text: string, extra: object = {}) =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text, ...extra });

  it('supersedes a name and a negated preference, and merges a repeated one', async () => {
    const { runtime, store } = await setup();
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
    expect(await getMemory(store, alex.id)).toMatchObject({ status: 'archived' });
    const samId = sam.extracted[0]!.memory.id;
    expect((await explain(store, DEFAULT_SPACE, samId)).supersedes).toEqual([alex.id]);
    expect((await explain(store, DEFAULT_SPACE, samId)).sources).toEqual([
      { turnId: sam.turn.id, reason: 'conflict', rule: 'heuristic:identity.name' },
    ]);
    expect((await explain(store, DEFAULT_SPACE, alex.id)).supersededBy).toEqual([samId]);
    expect((await explain(store, DEFAULT_SPACE, alex.id)).decisions[0]).toMatchObject({
      action: 'superseded',
      detail: { reason: 'conflict', by: samId },
    });

    const jrpg = first.extracted[0]!.memory;
    const negation = await say(runtime, 'I no longer like JRPGs');
    expect(negation.extracted.map((e) => e.action)).toEqual(['created', 'superseded']);
    expect((await getMemory(store, jrpg.id))!.status).toBe('archived');

    const again = await say(runtime, 'I really like JRPGs');
    expect(again.extracted[0]).toMatchObject({ action: 'created' });
    const repeat = await say(runtime, 'I really like JRPGs');
    expect(repeat.extracted).toMatchObject([
      { action: 'merged', memory: { id: again.extracted[0]!.memory.id, hits: 1 } },
    ]);
  });

  it('moves the home slot: "I live in Berlin" then "I moved to Lisbon"', async () => {
    const { runtime, store } = await setup();
    const berlin = (await say(runtime, 'I live in Berlin')).extracted[0]!.memory;
    const lisbon = await say(runtime, 'I moved to Lisbon');
    expect(lisbon.extracted.map((e) => [e.action, e.memory.id])).toEqual([
      ['created', lisbon.extracted[0]!.memory.id],
      ['superseded', berlin.id],
    ]);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['User moved to Lisbon']);
  });

  it('is idempotent in effect when the same turn is sent again', async () => {
    const { runtime, store } = await setup();
    await say(runtime, 'My favorite food is ramen and I live in Osaka');
    await say(runtime, 'My favorite food is ramen and I live in Osaka');
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(2);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.every((m) => m.hits === 1)).toBe(true);
  });

  // With few facts all of the user's are compared; with many, the text index finds the candidates.
  it.each([
    ['few', 0],
    ['many', 320],
  ])(
    'merges fuzzy duplicates over the Jaccard threshold and keeps distinct facts apart (a user with %s facts)',
    async (_, earlier) => {
      const { runtime, store } = await setup();
      await write(store, async () => {
        for (let i = 0; i < earlier; i++)
          await insertMemory(store, DEFAULT_SPACE, {
            content: `Zebra quartz number ${i}`,
            fact: { subject: 'User', slot: `zebra ${i}`, value: 'quartz', polarity: 1 },
          });
      });
      const others = (await listMemories(store, DEFAULT_SPACE)).total;
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's1',
        role: 'user',
        name: 'Caroline',
        text: 'I went to the LGBTQ support group in town yesterday',
      });
      const near = await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's2',
        role: 'user',
        name: 'Caroline',
        text: 'I went to the LGBTQ support group in the town',
      });
      expect(near.extracted[0]!.action).toBe('merged');
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's2',
        role: 'user',
        name: 'Caroline',
        text: 'I went to a pottery class',
      });
      expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(others + 2);
      // The same words from someone else are their own fact, not a second sighting of Caroline's.
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's2',
        role: 'user',
        name: 'Caroline',
        text: 'I went hiking with my sister in the Alps last weekend',
      });
      const melanie = await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's2',
        role: 'user',
        name: 'Melanie',
        text: 'I went hiking with my sister in the Alps last weekend!',
      });
      expect(melanie.extracted.map((e) => [e.action, e.memory.subject])).toEqual([['created', 'Melanie']]);
      expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(others + 4);
      // Words the index splits at an apostrophe do not hide a duplicate from the probe.
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's3',
        role: 'user',
        name: 'Caroline',
        text: "I met Sarah O'Brien and D'Angelo at the rock'n'roll night",
      });
      const again = await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's3',
        role: 'user',
        name: 'Caroline',
        text: "I met Sarah O'Brien and D'Angelo at a rock'n'roll night",
      });
      expect(again.extracted.map((e) => e.action)).toEqual(['merged']);
    },
  );

  it('does not mine assistant turns, nor turns sent without extraction', async () => {
    const { runtime, store } = await setup();
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 's1',
      role: 'assistant',
      text: 'I like helping you and my name is Claude',
    });
    await say(runtime, 'I like tea', { autoExtract: false });
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(0);
  });

  it('tags pii and keeps it out of context when configured', async () => {
    const { runtime, store } = await setup({ context: { exclude_pii: true } });
    const result = await say(runtime, 'My email is alex@example.com and I like sushi');
    expect(result.extracted.map((e) => e.memory.tags).sort()).toEqual([['pii'], ['preference']]);
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 's1' });
    expect(context.midTerm.map((m) => m.content)).toEqual(['User likes sushi']);
    expect(context.markdown).not.toContain('example.com');
  });
});

describe('reading people right: moves, health and diet, relatives, clean sentences', () => {
  // T0 is Thursday 1 January 2026, 12:00 UTC; extractFacts reads dates in UTC unless told a zone.
  const extract = (text: string, subject = 'User') => extractFacts(text, subject, T0);

  it('allergies, diets and intolerances become protected facts tagged health/diet', () => {
    expect(extract("I'm allergic to peanuts").map((f) => [f.content, f.slot, f.tags, f.protect])).toEqual([
      ['User is allergic to peanuts', 'allergy:peanuts', ['health', 'diet'], true],
    ]);
    expect(extract("I'm vegetarian").map((f) => [f.content, f.slot, f.exclusive, f.tags, f.protect])).toEqual([
      ['User is vegetarian', 'diet', true, ['diet'], true],
    ]);
    expect(extract("I can't eat gluten").map((f) => [f.content, f.tags, f.protect])).toEqual([
      ["User can't eat gluten", ['health', 'diet'], true],
    ]);
  });

  it('"My sister Maria lives in Porto" is about Maria, the sister, and names her', () => {
    const [fact] = extract('My sister Maria lives in Porto');
    expect(fact).toMatchObject({
      content: "User's sister Maria lives in Porto",
      subject: "User's sister Maria",
      slot: 'home',
      exclusive: true,
    });
    expect(fact!.related).toEqual([{ name: 'Maria', type: 'person', relation: 'sister', of: 'User' }]);
  });

  // Twenty-odd everyday sentences and what they should read as.
  const CASES: [string, string[]][] = [
    ["I'm allergic to peanuts and shellfish", ['User is allergic to peanuts', 'User is allergic to shellfish']],
    ["I'm lactose intolerant", ['User is lactose intolerant']],
    ['I have a severe peanut allergy', ['User has a peanut allergy']],
    ["I don't eat meat anymore", ['User no longer eats meat']],
    ['I went vegan last year', ['User became vegan in 2025']],
    ["I'm no longer vegetarian", ['User is no longer vegetarian']],
    ['I have type 2 diabetes', ['User has type 2 diabetes']],
    ["I'm on a low-carb diet", ['User is on a low-carb diet']],
    ["I can't have kids", ["User can't have kids"]], // a lasting fact kept whole, not a diet
    ['My dog Rex is sick', ["User's dog Rex is sick"]],
    ['My kids love the beach', ["User's kids love the beach"]],
    ['My mom is a nurse', ["User's mom is a nurse"]],
    ["My sister's name is Maria", ["User's sister is called Maria"]],
    ['Maria is my best friend', ["Maria is User's best friend"]],
    ['My brother Tom works at Google', ["User's brother Tom works at Google"]],
    ['I met my friend Anna at the cafe yesterday', ['User met their friend Anna at the cafe on 31 December 2025']],
    ['I have a dog named Rex', ['User has a dog named Rex']],
    ['I started a new job at Spotify two weeks ago', ['User started a new job at Spotify around 18 December 2025']],
    ["I don't play tennis anymore", ['User no longer plays tennis']],
    ['I ran a marathon last Saturday', ['User ran a marathon on 27 December 2025']],
    ["I'm flying to Tokyo next month", ['User is flying to Tokyo in February 2026']],
    ['My husband and I got married in 2019', ['User got married in 2019']],
    ['My grandma passed away last week', ["User's grandma passed away in the week of 22 December 2025"]],
    ["Hey Sam, since we last talked, I've adopted a cat", ['User adopted a cat']],
    [
      'We went hiking last Saturday and it was lovely',
      ['User said they went hiking on 27 December 2025 and it was lovely'],
    ],
    ['My sister Maria moved to Lisbon', ["User's sister Maria moved to Lisbon"]],
  ];
  it.each(CASES)('%s', (text, expected) => {
    expect(extract(text).map((f) => f.content)).toEqual(expected);
  });

  it('"I can\'t have kids" is no diet: kept whole, tagged a statement, unprotected', () => {
    expect(extract("I can't have kids")).toMatchObject([{ rule: 'statement.clause', tags: ['statement'] }]);
    expect(extract("I can't have kids")[0]?.protect).toBeUndefined();
  });

  it('names relatives, friends and pets with their relation; an animal is not a person', () => {
    const names = (text: string) =>
      extract(text).flatMap((f) => (f.related ?? []).map((r) => `${r.name}:${r.relation}:${r.type}`));
    expect(names('My dog Rex is sick')).toEqual(['Rex:dog:other']);
    expect(names("My sister's name is Maria")).toEqual(['Maria:sister:person']);
    expect(names('Maria is my best friend')).toEqual(['Maria:best friend:person']);
    expect(names('I met my friend Anna at the cafe yesterday')).toEqual(['Anna:friend:person']);
    // Not names: a weekday, a sentence opener, a possessive thing.
    expect(names('Thankfully, my son is fine')).toEqual([]);
    expect(names('I saw my friend Monday at the gym')).toEqual([]);
  });

  it("keeps the speaker's words of the claim and drops what says nothing on its own", () => {
    // The speaker's own verb of liking, one slot for all of them.
    expect(extract("I'm a big fan of pottery", 'Melanie').map((f) => [f.content, f.slot])).toEqual([
      ['Melanie is a big fan of pottery', 'likes:pottery'],
    ]);
    expect(extract('I enjoy pottery', 'Melanie').map((f) => [f.content, f.slot])).toEqual([
      ['Melanie enjoys pottery', 'likes:pottery'],
    ]);
    // Intensifiers go; a leading "Lately," goes after the claim, not into a reported "said".
    expect(extract("I'm really lucky to have such a supportive sister", 'Caroline').map((f) => f.content)).toEqual([
      'Caroline is lucky to have such a supportive sister',
    ]);
    expect(
      extract("Lately, I've been looking into counseling and mental health as a career", 'Caroline').map(
        (f) => f.content,
      ),
    ).toEqual(['Caroline has been looking into counseling and mental health as a career lately']);
    // A claim whose object only points back at something said before is not a memory.
    // Nor is a reaction, a reassurance or a resolution said to cheer on; a plan to stay somewhere is.
    for (const text of [
      "I couldn't have done it without them",
      'I want to help make that happen',
      "I'm gonna keep doing it",
      'Glad I can be part of this journey with my friends',
      "Don't worry, I won't let anything get me down",
      "I'm gonna keep chasing my dreams no matter what",
      "I'll stay positive and keep pushing forward",
    ])
      expect(extract(text, 'Caroline'), text).toEqual([]);
    expect(extract("I'll stay in Galway for the arts and Irish music", 'Tim')).not.toEqual([]);
    // Chat spellings said as sentences: "I been" and "wanna".
    expect(extract('I been practicing dance routines every morning', 'Jon').map((f) => f.content)).toEqual([
      'Jon has been practicing dance routines every morning',
    ]);
    expect(extract('I wanna open a dance studio in the city', 'Jon').map((f) => f.content)).toEqual([
      'Jon wants to open a dance studio in the city',
    ]);
  });

  it('writes third-person sentences: verbs agree, "my" at the start is the subject\'s, no "User:" labels', () => {
    expect(extract('I really love hiking with my dog').map((f) => f.content)).toEqual([
      'User loves hiking with their dog',
    ]);
    expect(extract('My favorite color is blue').map((f) => f.content)).toEqual(["User's favorite color is blue"]);
    const fallback = extract('We have been restoring an old boat with my dad', 'Caroline').map((f) => f.content);
    expect(fallback).toEqual(['Caroline said they have been restoring an old boat with their dad']);
    for (const text of [
      'My sister Maria lives in Porto',
      'Hey Caroline, since we last chatted, I have had a lot going on with my family',
    ]) {
      for (const fact of extract(text))
        expect(fact.content).not.toMatch(/^User:|\bi is\b|\bUser (?:play|go|have|love)\b/);
    }
  });
});

describe('reading people right on addTurn', () => {
  const setup = async () => {
    const t = await testStore({ extractor: { mode: 'heuristic', timezone: 'UTC' } });
    return { ...t, runtime: await createRuntime(t.store, {}) };
  };
  const say = (runtime: Awaited<ReturnType<typeof setup>>['runtime'], text: string) =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 's1', role: 'user', text });

  it('a move told later supersedes the old home even when dated last month; history is kept', async () => {
    const { runtime, store, advanceDays } = await setup();
    const berlin = (await say(runtime, 'I live in Berlin')).extracted[0]!.memory;
    advanceDays(2);
    const lisbon = await say(runtime, 'I moved to Lisbon last month');
    expect(lisbon.extracted.map((e) => [e.action, e.memory.content, e.memory.status])).toEqual([
      ['created', 'User moved to Lisbon in December 2025', 'active'],
      ['superseded', 'User lives in Berlin', 'archived'],
    ]);
    expect((await explain(store, DEFAULT_SPACE, berlin.id)).supersededBy).toEqual([lisbon.extracted[0]!.memory.id]);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual([
      'User moved to Lisbon in December 2025',
    ]);
  });

  it('a move dated long before the current home was stated is history, not news', async () => {
    const { runtime, store } = await setup();
    await say(runtime, 'I live in Berlin');
    const paris = await say(runtime, 'I moved to Paris in 2010');
    expect(paris.extracted.map((e) => [e.action, e.memory.content, e.memory.status])).toEqual([
      ['superseded', 'User moved to Paris in 2010', 'archived'],
    ]);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['User lives in Berlin']);
  });

  it("an imported history (turns dated months ago) moves house in its own time, not the import's", async () => {
    const { runtime, store } = await setup();
    // The clock is today; the turns carry their own dates, a month apart, long before today.
    const at = (iso: string) => Date.parse(iso);
    await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 'a',
      role: 'user',
      text: 'I live in Lisbon now',
      at: at('2025-01-01T10:00:00Z'),
    });
    const porto = await ingestTurn(runtime, DEFAULT_SPACE, {
      sessionId: 'b',
      role: 'user',
      text: 'I moved to Porto',
      at: at('2025-02-01T10:00:00Z'),
    });
    expect(porto.extracted.map((e) => [e.action, e.memory.content, e.memory.status])).toEqual([
      ['created', 'User moved to Porto', 'active'],
      ['superseded', 'User lives in Lisbon now', 'archived'],
    ]);
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content)).toEqual(['User moved to Porto']);
  });

  it('health and diet facts are important and protected from decay; a new diet replaces the old one', async () => {
    const { runtime, store, advanceDays } = await setup();
    const peanuts = (await say(runtime, "I'm allergic to peanuts")).extracted[0]!.memory;
    expect(peanuts).toMatchObject({ importance: 1, decayRate: 0, tags: ['health', 'diet'] });
    const vegetarian = (await say(runtime, "I'm vegetarian")).extracted[0]!.memory;
    // A preference is standing memory: protected too. A plain fact decays.
    const tea = (await say(runtime, 'I like green tea')).extracted[0]!.memory;
    const umbrella = (await say(runtime, 'I bought a new umbrella')).extracted[0]!.memory;
    expect([tea.kind, umbrella.kind]).toEqual(['preference', 'fact']);
    advanceDays(120);
    await runDecay(store);
    expect((await getMemory(store, peanuts.id))!.status).toBe('active');
    expect((await getMemory(store, tea.id))!.status).toBe('active');
    expect((await getMemory(store, umbrella.id))!.status).toBe('archived');
    const vegan = await say(runtime, "I'm vegan now");
    expect(vegan.extracted.map((e) => [e.action, e.memory.content])).toEqual([
      ['created', 'User is vegan'],
      ['superseded', 'User is vegetarian'],
    ]);
    expect((await getMemory(store, vegetarian.id))!.status).toBe('archived');
  });

  it('"My sister Maria lives in Porto" registers Maria at once, described as the sister', async () => {
    const { runtime, store } = await setup();
    const result = await say(runtime, 'My sister Maria lives in Porto');
    expect(result.extracted.map((e) => e.memory.content)).toEqual(["User's sister Maria lives in Porto"]);
    const maria = (await findEntity(store, DEFAULT_SPACE, { name: 'Maria' }))!;
    expect(maria).toMatchObject({ name: 'Maria', type: 'person', summary: "User's sister" });
    expect((await memoriesForEntity(store, DEFAULT_SPACE, maria.id)).rows.map((m) => m.content)).toEqual([
      "User's sister Maria lives in Porto",
    ]);
    expect(await findEntity(store, DEFAULT_SPACE, { name: 'sister Maria' })).toBeUndefined();
    // Her own move supersedes her home, not the user's.
    await say(runtime, 'I live in Berlin');
    await say(runtime, 'My sister Maria moved to Lisbon');
    expect((await listMemories(store, DEFAULT_SPACE)).rows.map((m) => m.content).sort()).toEqual([
      'User lives in Berlin',
      "User's sister Maria moved to Lisbon",
    ]);
  });

  it('the same event on two dates is two facts; a date on one side only still merges', async () => {
    const { runtime, store, advanceDays } = await setup();
    await say(runtime, 'I went to the climbing gym yesterday');
    advanceDays(7);
    const again = await say(runtime, 'I went to the climbing gym yesterday');
    expect(again.extracted.map((e) => [e.action, e.memory.content])).toEqual([
      ['created', 'User went to the climbing gym on 7 January 2026'],
    ]);
    const undated = await say(runtime, 'I went to the climbing gym');
    expect(undated.extracted.map((e) => e.action)).toEqual(['merged']);
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(2);
  });
});
