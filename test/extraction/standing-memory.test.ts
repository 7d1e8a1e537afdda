// Standing memory through addTurn and context: instructions, preferences and profile facts are
// recognised when said (the labelled set holds the recogniser to precision >= 0.9 and recall >=
// 0.85), saved as their own kinds, protected, superseded by a later contradicting one with the
// history kept, and open every context block within their share of the budget, whatever the query.
import { describe, expect, it } from 'vitest';
import { getContext } from '../../server/core/context/context.ts';
import { DEFAULT_STANDING_TUNING } from '../../server/core/context/context-standing.ts';
import { runDecay } from '../../server/core/memory/decay.ts';
import { explain } from '../../server/core/memory/explain.ts';
import { recogniseStanding } from '../../server/core/extraction/standing.ts';
import { runGc } from '../../server/core/memory/gc.ts';
import { saveFacts } from '../../server/core/extraction/save-facts.ts';
import { getMemory } from '../../server/core/memory/memories.ts';
import { getProfile, setPinned } from '../../server/core/memory/profile.ts';
import { DEFAULT_SPACE, type Space } from '../../server/core/kernel/space.ts';
import { countTokens } from '../../server/core/text/token-count.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { STANDING_PHRASINGS } from '../fixtures/standing-phrasings.ts';
import { testStore } from '../helpers/store.ts';

const setup = async (config = {}) => {
  const t = await testStore({ extractor: { mode: 'heuristic' }, ...config });
  return { ...t, runtime: await createRuntime(t.store, {}) };
};
type Runtime = Awaited<ReturnType<typeof setup>>['runtime'];
const say = (
  runtime: Runtime,
  text: string,
  extra: { role?: 'user' | 'assistant'; sessionId?: string; space?: Space } = {},
) =>
  ingestTurn(runtime, extra.space ?? DEFAULT_SPACE, {
    sessionId: extra.sessionId ?? 's1',
    role: extra.role ?? 'user',
    text,
  });

describe('the labelled set', () => {
  it('has at least 60 phrasings in both styles, half instructions or preferences, half near misses', () => {
    expect(STANDING_PHRASINGS.length).toBeGreaterThanOrEqual(60);
    const standing = STANDING_PHRASINGS.filter((p) => p.label === 'instruction' || p.label === 'preference').length;
    const misses = STANDING_PHRASINGS.filter((p) => p.label === null).length;
    expect(standing).toBeGreaterThanOrEqual(30);
    expect(misses).toBeGreaterThanOrEqual(30);
    expect(new Set(STANDING_PHRASINGS.map((p) => p.style))).toEqual(new Set(['chat', 'assistant']));
  });

  it('is recognised with precision >= 0.9 and recall >= 0.85', () => {
    let truePositives = 0;
    let falsePositives = 0;
    let falseNegatives = 0;
    for (const p of STANDING_PHRASINGS) {
      const kinds = new Set(recogniseStanding(p.text).map((c) => c.kind));
      if (p.label && kinds.has(p.label)) truePositives++;
      else if (p.label) falseNegatives++;
      // A near miss taken for an instruction or preference, or a phrasing taken for the wrong kind.
      if (
        (!p.label && (kinds.has('instruction') || kinds.has('preference'))) ||
        (p.label && !kinds.has(p.label) && kinds.size > 0)
      )
        falsePositives++;
    }
    expect(truePositives / (truePositives + falsePositives)).toBeGreaterThanOrEqual(0.9);
    expect(truePositives / (truePositives + falseNegatives)).toBeGreaterThanOrEqual(0.85);
  });
});

describe('standing memory on addTurn', () => {
  it("saves an instruction in the user's words as kind instruction, protected from decay and GC", async () => {
    const { runtime, store, advanceDays } = await setup();
    const turn = await say(runtime, 'Always include version numbers when I ask about libraries.');
    const instruction = turn.extracted.find((e) => e.memory.kind === 'instruction')!.memory;
    expect(instruction).toMatchObject({
      content: 'Always include version numbers when I ask about libraries.',
      decayRate: 0,
      importance: 1,
      status: 'active',
    });
    // Said once and never used: a fact would be gone after this long; an instruction stays.
    advanceDays(400);
    await runDecay(store);
    await runGc(store);
    expect((await getMemory(store, instruction.id))!.status).toBe('active');
  });

  it('a later contradicting instruction supersedes it, and the history is kept', async () => {
    const { runtime, store, advanceDays } = await setup();
    const always = (await say(runtime, 'Always include version numbers when I ask about libraries.')).extracted.find(
      (e) => e.memory.kind === 'instruction',
    )!.memory;
    advanceDays(3);
    const stop = await say(runtime, 'Actually, stop including versions.');
    expect(stop.extracted.map((e) => [e.action, e.memory.kind, e.memory.content, e.memory.status])).toEqual([
      ['created', 'instruction', 'Actually, stop including versions.', 'active'],
      ['superseded', 'instruction', 'Always include version numbers when I ask about libraries.', 'archived'],
    ]);
    const why = await explain(store, DEFAULT_SPACE, always.id);
    expect(why.supersededBy).toEqual([stop.extracted[0]!.memory.id]);
    expect((await getProfile(store, DEFAULT_SPACE)).instructions.map((m) => m.content)).toEqual([
      'Actually, stop including versions.',
    ]);
    // An unrelated instruction of the opposite polarity leaves it alone.
    await say(runtime, 'Never use semicolons in JavaScript examples.');
    expect((await getProfile(store, DEFAULT_SPACE)).instructions).toHaveLength(2);
  });

  it('a fact said as standing memory too is one memory: in one turn, and across turns and kinds', async () => {
    const { runtime, store } = await setup();
    // "has a cat" (profile) and "has a cat named Luna" (a fact rule): the fuller one, as profile.
    const named = await say(runtime, 'I have a cat named Luna.');
    expect(named.extracted.map((e) => [e.action, e.memory.kind, e.memory.content])).toEqual([
      ['created', 'profile', 'User has a cat named Luna'],
    ]);
    // The same words saved later as a plain fact (an LLM's, an import's) merge into the profile fact, not a second row.
    const dog = (await say(runtime, 'I have a dog.', { sessionId: 's2' })).extracted[0]!.memory;
    expect(dog.kind).toBe('profile');
    const again = await saveFacts(store, DEFAULT_SPACE, [{ content: 'User has a dog', sessionId: 's3' }], null);
    expect(again.map((e) => [e.action, e.memory.id, e.memory.kind])).toEqual([['merged', dog.id, 'profile']]);
    const active = (await getProfile(store, DEFAULT_SPACE)).profile.map((m) => m.content).sort();
    expect(active).toEqual(['User has a cat named Luna', 'User has a dog']);
  });

  it('"I moved to Lisbon" supersedes where the user lived: profile facts, history kept', async () => {
    const { runtime, store, advanceDays } = await setup();
    const berlin = (await say(runtime, 'I live in Berlin.')).extracted[0]!.memory;
    expect(berlin.kind).toBe('profile');
    advanceDays(30);
    const lisbon = await say(runtime, 'I moved to Lisbon.');
    expect(lisbon.extracted.map((e) => [e.action, e.memory.kind, e.memory.status])).toEqual([
      ['created', 'profile', 'active'],
      ['superseded', 'profile', 'archived'],
    ]);
    expect((await getProfile(store, DEFAULT_SPACE)).profile.map((m) => m.content)).toEqual(['User moved to Lisbon']);
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 'later', query: 'Where does the user live?' });
    expect(context.markdown).toMatch(/^## About the user\n- User moved to Lisbon /);
    // The old home, when the block quotes it, says it was replaced and by what.
    const old = context.items.find((i) => i.kind !== 'turn' && i.id === berlin.id);
    if (old) expect(old.line).toMatch(/replaced \d{4}-\d{2}-\d{2} by: User moved to Lisbon/);
  });

  it('a user introducing themselves to an assistant gives their name and job; a fan or a believer has no job', async () => {
    const { runtime, store } = await setup();
    await say(runtime, "I'm Craig, a 44-year-old colour technologist, and I'm trying to learn about probability.");
    await say(runtime, "I'm a huge fan of jazz, and I'm a big believer in testing.", { sessionId: 's2' });
    const profile = (await getProfile(store, DEFAULT_SPACE)).profile.map((m) => m.content).sort();
    // The clause's own fact says the same, more fully: one profile memory, the fuller wording.
    expect(profile).toEqual(['User is Craig, a 44-year-old colour technologist', "User's name is Craig"]);
  });

  it('preferences, and not: habits, "never mind", questions, reported speech, assistant turns', async () => {
    const { runtime, store } = await setup();
    await say(runtime, "I'm building the budget app and I prefer minimal dependencies, how should I start?");
    for (const text of [
      'I always forget my keys.',
      'Never mind, it was nothing.',
      'Could you always include version numbers?',
      'She always says the lake looks best at dawn.',
    ])
      await say(runtime, text);
    await say(runtime, 'Always run the tests before you push, and never commit secrets.', { role: 'assistant' });
    const profile = await getProfile(store, DEFAULT_SPACE);
    expect(profile.preferences.map((m) => m.content)).toEqual(['User prefers minimal dependencies']);
    expect(profile.instructions).toEqual([]);
  });

  it('an instruction of 50,000 characters is kept to 1,000, and the block stays within its budget', async () => {
    const { runtime, store } = await setup();
    const long = `Always include ${'very detailed '.repeat(3_600)}explanations.`;
    expect(long.length).toBeGreaterThan(50_000);
    const turn = await say(runtime, long);
    const instruction = turn.extracted.find((e) => e.memory.kind === 'instruction')!.memory;
    expect(instruction.content.length).toBeLessThanOrEqual(1_001);
    const context = await getContext(store, DEFAULT_SPACE, { sessionId: 'later', query: 'hello', tokenBudget: 200 });
    expect(context.tokensUsed).toBeLessThanOrEqual(200);
    expect(context.tokensUsed).toBe(countTokens(context.markdown));
    // Too long for its share: left out, and the block says so.
    expect(context.standing.instructions.leftOut).toBe(1);
    expect(context.markdown).toContain('(1 more standing instructions not shown)');
  });

  it('an instruction that contradicts itself is kept once, as said, and supersedes nothing of its own', async () => {
    const { runtime, store } = await setup();
    const turn = await say(runtime, 'Always include emojis and never include emojis.');
    expect(
      turn.extracted.filter((e) => e.memory.kind === 'instruction').map((e) => [e.action, e.memory.content]),
    ).toEqual([['created', 'Always include emojis and never include emojis.']]);
    const again = await say(runtime, 'Always include emojis and never include emojis.');
    expect(again.extracted.map((e) => e.action)).toEqual(['merged']);
    expect((await getProfile(store, DEFAULT_SPACE)).instructions).toHaveLength(1);
  });
});

describe('standing memory in context', () => {
  it('opens every block, whatever the query, before the ranked list; an agent sees its own and the shared ones', async () => {
    const { runtime, store } = await setup();
    await say(runtime, 'Always format code snippets with syntax highlighting when I ask about implementation details.');
    await say(runtime, 'I prefer simple, minimal dependencies.');
    await say(runtime, 'From now on, answer in French.', { space: { userId: 'default', agentId: 'tutor' } });
    await say(runtime, 'I went to the market on Saturday and bought apples.');
    const context = await getContext(store, DEFAULT_SPACE, {
      sessionId: 'later',
      query: 'Could you show me how to implement a login feature?',
    });
    expect(context.markdown).toMatch(
      /^## Standing instructions\n- Always format code snippets with syntax highlighting when I ask about implementation details\. \(stated \d{4}-\d{2}-\d{2}\)\n/,
    );
    expect(context.markdown).toContain('\n\n## About the user\n- User prefers simple, minimal dependencies (stated ');
    expect(context.items.slice(0, 3).map((i) => [i.kind, i.reason])).toEqual([
      ['instruction', 'standing'],
      ['instruction', 'standing'],
      ['preference', 'standing'],
    ]);
    // The shared space holds the agent's own instruction too (a user's view); the agent sees it with the shared ones.
    const tutor = await getContext(
      store,
      { userId: 'default', agentId: 'tutor' },
      { sessionId: 'later', query: 'apples' },
    );
    expect(tutor.standing.instructions.items.map((i) => i.text).sort()).toEqual([
      'Always format code snippets with syntax highlighting when I ask about implementation details.',
      'From now on, answer in French.',
    ]);
    const other = await getContext(
      store,
      { userId: 'default', agentId: 'coach' },
      { sessionId: 'later', query: 'apples' },
    );
    expect(other.standing.instructions.items.map((i) => i.text)).toEqual([
      'Always format code snippets with syntax highlighting when I ask about implementation details.',
    ]);
  });

  it('500 instructions stay within the share of the budget, the block saying how many were left out; query matches and pinned go first', async () => {
    const { runtime, store } = await setup();
    // Five hundred made-up project names: "zobak", "zobal"…
    const name = (i: number) =>
      `zo${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}${String.fromCharCode(97 + (i % 26))}ka`;
    for (let i = 0; i < 500; i++)
      await say(runtime, `Always mention the budget owner when I ask about the ${name(i)} project.`);
    const fact = (await say(runtime, 'I went to the harbour with Rui last Sunday.')).extracted[0]!.memory;
    await setPinned(store, DEFAULT_SPACE, fact.id, true);
    const context = await getContext(store, DEFAULT_SPACE, {
      sessionId: 'later',
      query: `How is the ${name(7)} project going?`,
      tokenBudget: 1_000,
    });
    expect(context.tokensUsed).toBeLessThanOrEqual(1_000);
    expect(context.standing.tokens).toBeLessThanOrEqual(0.35 * 1_000);
    const shown = context.standing.instructions.items.length;
    expect(shown).toBeGreaterThan(3);
    expect(context.standing.instructions.leftOut).toBe(500 - shown);
    expect(context.markdown).toContain(`(${500 - shown} more standing instructions not shown)`);
    expect(context.standing.instructions.items[0]!.text).toBe(
      `Always mention the budget owner when I ask about the ${name(7)} project.`,
    );
    // A pinned memory of any kind is in the block, in "About the user", whatever the query.
    expect(context.standing.about.items.map((i) => [i.id, i.kind])).toEqual([[fact.id, 'fact']]);
    expect(context.markdown).toMatch(/## About the user\n- User went to the harbour with Rui[^\n]*\(pinned, stated /);
  }, 120_000);

  it('what the question does not touch takes a small share of the budget; what it touches comes first; instructions still open the block', async () => {
    const { runtime, store } = await setup();
    const name = (i: number) =>
      `zo${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}ka`;
    for (let i = 0; i < 30; i++) {
      await say(runtime, `Always add a changelog entry when I touch the ${name(i)} module.`);
      await say(runtime, `I prefer the ${name(i)} colour scheme.`);
    }
    await say(runtime, 'I prefer trail running shoes with a wide toe box.');
    const budget = 1_000;
    const context = await getContext(store, DEFAULT_SPACE, {
      sessionId: 'later',
      query: 'Which trail running shoes suit a wide toe box?',
      tokenBudget: budget,
    });
    const { instructions, about } = context.standing;
    const tokensOf = (items: { tokens: number }[]) => items.reduce((sum, i) => sum + i.tokens, 0);
    expect(about.items[0]!.text).toBe('User prefers trail running shoes with a wide toe box');
    // Unmatched: each section within its share (lines only; the headings are paid apart).
    expect(tokensOf(about.items.slice(1))).toBeLessThanOrEqual(DEFAULT_STANDING_TUNING.unmatchedAbout * budget);
    expect(instructions.items.length).toBeGreaterThan(0);
    expect(tokensOf(instructions.items)).toBeLessThanOrEqual(DEFAULT_STANDING_TUNING.unmatchedInstructions * budget);
    expect(instructions.leftOut + instructions.items.length).toBe(30);
    expect(about.leftOut + about.items.length).toBe(31);
    expect(context.markdown).toContain(`(${instructions.leftOut} more standing instructions not shown)`);
    // The rest of the budget is the ranked list's.
    expect(context.standing.tokens).toBeLessThan(0.25 * budget);
    expect(context.tokensUsed).toBeLessThanOrEqual(budget);
  }, 120_000);
});
