// Memory hygiene end to end (docs/extraction.md): through addTurn on a listening server, a memory
// is a lasting claim, not an utterance. Requests, questions, greetings and fragments stay turns;
// assistant turns teach only decisions and restated user facts; one fact said twice is one memory;
// the service's own text sent back is not learnt again; hostile input leaves no junk.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStatus, Role, SearchKind, type SymbiosisClient } from '../../client/src/index.ts';
import { proseOf } from '../../server/core/extraction/fact-filter.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;
let users = 0;

beforeAll(async () => {
  server = await startServer();
  client = server.client();
});
afterAll(() => server.close());

/** A fresh user for each test, so no test sees another's memories. */
const freshUser = () => `hygiene-${++users}`;

async function say(userId: string, text: string, options: { role?: Role; name?: string; sessionId?: string } = {}) {
  const { addTurn } = await client.addTurn({
    userId,
    input: { sessionId: options.sessionId ?? 's1', role: options.role ?? Role.User, name: options.name, text },
  });
  return addTurn;
}

async function active(userId: string) {
  const { memories } = await client.memories({ userId, status: MemoryStatus.Active, first: 100 });
  return memories.edges.map((e) => e.node);
}

describe('a memory is a lasting claim, not an utterance', () => {
  it('keeps facts and drops greetings, thanks, questions, requests, reactions and fragments; the turns stay searchable', async () => {
    const userId = freshUser();
    const noise = [
      'Hey Mel! Good to see you! How have you been?',
      'Thanks, Melanie! That is really sweet of you.',
      'Can you help me create a schedule to meet my deadlines?',
      'Please provide an example of password hashing with Werkzeug.',
      "I'm not sure how to structure my code.",
      "Here's what I have so far:",
      'Wow, that is so cool!',
      "You're doing an amazing job with your kids!",
    ];
    for (const text of noise) expect((await say(userId, text, { name: 'Caroline' })).extracted, text).toEqual([]);
    const fact = await say(userId, 'I adopted a rescue cat named Luna last week.', { name: 'Caroline' });
    expect(fact.extracted.map((e) => e.memory.content)).toEqual([
      expect.stringMatching(/^Caroline adopted a rescue cat named Luna/),
    ]);
    expect((await active(userId)).map((m) => m.content)).toHaveLength(1);
    const { search } = await client.search({ userId, query: 'Werkzeug password hashing', kinds: [SearchKind.Turn] });
    expect(search.map((h) => h.turn?.text)).toContain(noise[3]);
  });

  it('drops the request and keeps the preference said beside it in the same turn', async () => {
    const userId = freshUser();
    const turn = await say(
      userId,
      'Can you help me set up the linter for my API? I prefer TypeScript over JavaScript, and I work at Acme.',
    );
    // Standing memory may word the preference its own way: one memory each, none for the request.
    const contents = turn.extracted.map((e) => e.memory.content);
    expect(contents).toHaveLength(2);
    expect(contents.filter((c) => /TypeScript/.test(c))).toHaveLength(1);
    expect(contents.filter((c) => /Acme/.test(c))).toHaveLength(1);
    expect(contents.filter((c) => /linter|help/i.test(c))).toEqual([]);
  });

  it('reads an assistant turn only for a decision or a user fact it restates as settled, about the session user', async () => {
    const userId = freshUser();
    await say(userId, 'Which database should I use for my budget tracker?', { name: 'Craig' });
    const explanation = await say(
      userId,
      'Certainly! SQLite is lightweight, while PostgreSQL scales better. You should consider your deployment.\n\n```sql\nCREATE TABLE t (id integer);\n```',
      { role: Role.Assistant },
    );
    expect(explanation.extracted).toEqual([]);
    const decision = await say(userId, 'Great, so we decided to use PostgreSQL for the backend.', {
      role: Role.Assistant,
    });
    expect(decision.extracted.map((e) => e.memory.content)).toEqual([
      'Craig decided to use PostgreSQL for the backend',
    ]);
    const confirmed = await say(userId, "Got it, you're allergic to peanuts. I'll keep that in mind.", {
      role: Role.Assistant,
    });
    expect(confirmed.extracted.map((e) => e.memory.content)).toEqual(['Craig is allergic to peanuts']);
  });

  it('merges one fact said again in other words into one memory with both turns as sources', async () => {
    const userId = freshUser();
    const first = await say(userId, "I'm really into rock climbing.", { name: 'Jon' });
    const again = await say(userId, 'Honestly, I am into rock climbing', { name: 'Jon', sessionId: 's2' });
    expect(first.extracted.map((e) => e.action)).toEqual(['CREATED']);
    expect(again.extracted.map((e) => [e.action, e.memory.id])).toEqual([['MERGED', first.extracted[0]!.memory.id]]);
    const [memory] = await active(userId);
    expect(memory!.hits).toBe(first.extracted[0]!.memory.hits + 1);
    const { explain } = await client.explain({ userId, id: memory!.id });
    expect(explain!.sources.map((s) => s.turn?.id).sort()).toEqual([first.turn.id, again.turn.id].sort());
  });
});

describe('no loops: text the service produced is not learnt again', () => {
  it('a context block pasted back into a turn, or a memory quoted word for word, adds nothing and reinforces nothing', async () => {
    const userId = freshUser();
    await say(userId, 'I moved to Lisbon last month and I work as a nurse.', { name: 'Ana' });
    await say(userId, 'I prefer tea over coffee.', { name: 'Ana' });
    const before = await active(userId);
    expect(before.length).toBeGreaterThan(0);
    const { context } = await client.context({ userId, sessionId: 's9', query: 'where does Ana live and work?' });
    expect(context.markdown).toMatch(/^## About the user$/m);
    // Every line of the block is recognised as the service's own: headings, standing lines, facts, excerpts.
    expect(proseOf(context.markdown).trim()).toBe('');
    const pasted = await say(userId, `Here is what you know about me:\n\n${context.markdown}`, {
      name: 'Ana',
      sessionId: 's9',
    });
    expect(pasted.extracted).toEqual([]);
    const quoted = await say(userId, before.map((m) => m.content).join('. '), { name: 'Ana', sessionId: 's9' });
    expect(quoted.extracted).toEqual([]);
    const after = await active(userId);
    expect(after.map((m) => [m.id, m.hits])).toEqual(before.map((m) => [m.id, m.hits]));
  });
});

describe('hostile input: no junk, no error, linear time', () => {
  it('a 100-line code listing, a pasted stack trace and text in other scripts make no memory', async () => {
    const userId = freshUser();
    const code = Array.from({ length: 100 }, (_, i) =>
      i % 5 === 0
        ? `function step${i}(input) {`
        : i % 5 === 4
          ? '}'
          : `  const value${i} = input.map((x) => x * ${i}); // I love this`,
    ).join('\n');
    for (const text of [
      code,
      `\`\`\`python\n${code}\n\`\`\``,
      'שלום, אני גר בתל אביב ואני אוהב קפה',
      '我住在北京，我喜欢喝茶。',
      '😀🎉🔥👍',
      '🙂 🙂 🙂',
    ]) {
      const turn = await say(userId, text);
      expect(turn.extracted, text.slice(0, 40)).toEqual([]);
      expect(turn.turn.text).toBe(text.trim());
    }
    expect(await active(userId)).toEqual([]);
  });

  it('a turn repeated 1,000 times is one memory, and ten times as long costs about ten times as much', {
    timeout: 60_000,
  }, async () => {
    const userId = freshUser();
    const line = 'I adopted a dog named Rex yesterday. ';
    const timed = async (times: number) => {
      const t0 = performance.now();
      const turn = await say(userId, line.repeat(times), { sessionId: `r${times}` });
      return { ms: performance.now() - t0, turn };
    };
    await timed(10); // warm-up
    const thousand = await timed(1000);
    const tenThousand = await timed(10_000);
    expect(thousand.turn.extracted.filter((e) => e.action === 'CREATED').length).toBeLessThanOrEqual(1);
    expect((await active(userId)).map((m) => m.content)).toEqual([
      expect.stringMatching(/^User adopted a dog named Rex on /),
    ]);
    // Linear: ten times the text within a generous factor of ten times the time (a shared machine).
    expect(tenThousand.ms).toBeLessThan(Math.max(thousand.ms, 20) * 30);
  });
});

describe('the labelled utterances (test/fixtures/fact-utterances.json)', () => {
  type Labelled = {
    style: string;
    role: 'user' | 'assistant';
    speaker?: string;
    text: string;
    fact: boolean;
    reason: string;
  };
  const items: Labelled[] = JSON.parse(
    readFileSync(join(import.meta.dirname, '../fixtures', 'fact-utterances.json'), 'utf8'),
  );

  it('has at least 300 utterances of both styles, each with the reason for its label', () => {
    expect(items.length).toBeGreaterThanOrEqual(300);
    for (const style of ['locomo', 'beam']) expect(items.filter((i) => i.style === style).length).toBeGreaterThan(100);
    for (const item of items) expect(item.reason.length, item.text).toBeGreaterThan(5);
    expect(items.filter((i) => i.fact).length).toBeGreaterThan(100);
    expect(items.filter((i) => !i.fact).length).toBeGreaterThan(100);
  });

  it('addTurn keeps a memory for facts and none for the rest: precision >= 0.9 at recall >= 0.8', {
    timeout: 120_000,
  }, async () => {
    const kept: boolean[] = [];
    for (const [i, item] of items.entries()) {
      const { addTurn } = await client.addTurn({
        userId: `labelled-${i}`,
        input: {
          sessionId: 's',
          role: item.role === 'assistant' ? Role.Assistant : Role.User,
          name: item.speaker,
          text: item.text,
        },
      });
      kept.push(addTurn.extracted.length > 0);
    }
    const true_ = items.filter((item, i) => item.fact && kept[i]).length;
    const precision = true_ / kept.filter(Boolean).length;
    const recall = true_ / items.filter((item) => item.fact).length;
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.8);
  });
});
