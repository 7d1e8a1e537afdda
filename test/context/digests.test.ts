// Session digests and the timeline (docs/digests.md), through the domain functions over a real
// store: lines drawn from the turns (current after a new turn, gone with a forgotten one), the
// timeline a question about order or progress gets in its context, and the model summary as a
// durable job against the local OpenAI-compatible server, whose failure loses nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getContext } from '../../server/core/context/context.ts';
import { linesOfTurns, turnsOfSessions } from '../../server/core/digests/digest-lines.ts';
import { answerGist, requestGist } from '../../server/core/digests/gist.ts';
import {
  asksForTimeline,
  isTimelineLine,
  TIMELINE_HEADING,
  topicOf,
  withoutTimeline,
} from '../../server/core/context/timeline.ts';
import { forget } from '../../server/core/memory/forget.ts';
import { jobCounts, JobType } from '../../server/core/jobs/jobs.ts';
import { DAY_MS } from '../../server/core/kernel/clock.ts';
import type { Space } from '../../server/core/kernel/space.ts';
import { countTokens } from '../../server/core/text/token-count.ts';
import { drainJobs } from '../../server/jobs/worker.ts';
import { consolidateSession } from '../../server/services/consolidate.ts';
import { sessionDigest } from '../../server/services/digests.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { jobHandlers } from '../../server/services/job-handlers.ts';
import { createRuntime, type Runtime } from '../../server/services/runtime.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { countRows, T0, testStore } from '../helpers/store.ts';

const ME: Space = { userId: 'craig', agentId: null };

/** The worker with the digest job's handler only (the other jobs stay queued). */
const digestOnly = (runtime: Runtime) => ({ [JobType.Digest]: jobHandlers(runtime)[JobType.Digest]! });

/** Three dated sessions of a user building a budget tracker with an assistant, and one about cooking. */
const SESSIONS: { id: string; day: number; exchanges: [string, string][] }[] = [
  {
    id: 'plan',
    day: 0,
    exchanges: [
      [
        'Thanks for the help so far! I want to build a personal budget tracker with Flask. Can you help me set up the project with SQLite?',
        'Sure! Start with a Flask app factory and an SQLite database file.\n```python\napp = Flask(__name__)\n```',
      ],
      [
        'hmm, should I use SQLAlchemy for the budget tracker models?',
        'Yes, SQLAlchemy keeps the budget tracker models simple.',
      ],
    ],
  },
  {
    id: 'cooking',
    day: 3,
    exchanges: [
      ['Can you give me a recipe for a lentil soup?', 'Certainly! Simmer red lentils with onion, cumin and stock.'],
    ],
  },
  {
    id: 'security',
    day: 7,
    exchanges: [
      [
        'I decided to add password hashing to the budget tracker. How do I hash passwords with Werkzeug?',
        'Use generate_password_hash and check_password_hash from werkzeug.security.',
      ],
      [
        "I'll deploy the budget tracker on Render with Gunicorn. Can you review my Gunicorn config?",
        'Absolutely. Three workers on port 10000 is a good start for the budget tracker.',
      ],
    ],
  },
];

async function converse(runtime: Runtime, space: Space = ME) {
  const ids: Record<string, number[]> = {};
  for (const session of SESSIONS) {
    ids[session.id] = [];
    let at = T0 + session.day * DAY_MS;
    for (const [request, answer] of session.exchanges) {
      for (const [role, text] of [
        ['user', request],
        ['assistant', answer],
      ] as const) {
        const { turn } = await ingestTurn(runtime, space, { sessionId: session.id, role, text, at: (at += 60_000) });
        ids[session.id]!.push(turn.id);
      }
    }
  }
  return ids;
}

describe('gists', () => {
  it('keep the request or decision of a user turn, and what an answer says first, without code or openers', () => {
    expect(requestGist('Thanks a lot! Can you help me set up Flask with SQLite?')).toBe('set up Flask with SQLite?');
    // The sentence that sets the scene comes along when there is room.
    expect(
      requestGist('Thanks a lot! I want to build a budget tracker. Can you help me set up Flask with SQLite?'),
    ).toBe('build a budget tracker. set up Flask with SQLite?');
    expect(
      requestGist('Thanks a lot! I want to build a budget tracker. Can you help me set up Flask with SQLite?', 30),
    ).toBe('set up Flask with SQLite?');
    // A request that says nothing on its own takes the sentence before it.
    expect(requestGist("I've defined my user model with a password_hash field. Can you help me with that?")).toBe(
      "I've defined my user model with a password_hash field. Can you help me with that?",
    );
    expect(requestGist('Here is my code:\n```python\nprint(1)\n```\nWhy does it print 1?')).toBe(
      'Why does it print 1?',
    );
    expect(answerGist('Certainly! Use generate_password_hash from werkzeug.security. It salts.')).toBe(
      'Use generate_password_hash from werkzeug.security.',
    );
    expect(requestGist(`${'a'.repeat(50)} ${'b'.repeat(80)}`, 60)).toMatch(/^a{50}…$/);
    expect(answerGist('Use generate_password_hash from werkzeug.security.', 0)).toBe('');
  });

  it('a question asks for a timeline when it asks for an order, a summary or a progression', () => {
    for (const q of [
      'Can you walk me through the order in which I brought up the parts of my app?',
      'In what order did I set things up?',
      'Summarize what we did on the budget tracker',
      'How has my deployment setup changed?',
      'What steps did I take to secure the app?',
      'Give me a timeline of the project',
      'How did my project progress?',
      'Walk me through what we changed in the deployment',
    ])
      expect(asksForTimeline(q), q).toBe(true);
    // How-tos and progress as a topic ask for no history of the conversation.
    for (const q of [
      'What is my name?',
      'Which database did I choose?',
      'When did I deploy?',
      'Can you walk me through how to prove two triangles are congruent?',
      "I'm looking to improve the security of my app. What steps would you suggest I take?",
      "What did Jon say about Gina's progress with her store?",
      'How many problems have I completed across all sessions where I mentioned my progress?',
      '',
      null,
    ])
      expect(asksForTimeline(q), String(q)).toBe(false);
    const topic = topicOf(
      'Can you list the order in which I brought up different aspects of my budget tracker throughout our conversations? Mention ONLY and ONLY three items.',
    );
    expect(topic).toContain('my budget tracker');
    expect(topic).not.toMatch(/order|brought|aspects|throughout|conversations|mention|only|items/i);
  });
});

describe('session digests', () => {
  it("are a line per exchange in order, follow new turns, and lose a forgotten turn's line", async () => {
    const t = await testStore({ extractor: { mode: 'heuristic' }, ner: { enabled: false } });
    t.setNow(T0 + 30 * DAY_MS); // the conversation is in the past
    const runtime = await createRuntime(t.store, {});
    const ids = await converse(runtime);
    const digest = (await sessionDigest(runtime, ME, 'plan'))!;
    expect(digest.lines.map((l) => l.turnIds)).toEqual([ids.plan!.slice(0, 2), ids.plan!.slice(2, 4)]);
    expect(digest.lines[0]!.text).toBe(
      'build a personal budget tracker with Flask. set up the project with SQLite? → Start with a Flask app factory and an SQLite database file.',
    );
    expect(digest.summary).toBeNull();
    // With no room for the answer, a line is the request's alone and stands for it alone.
    const plan = (await turnsOfSessions(t.store, ME, ['plan'], 100)).get('plan')!;
    const short = linesOfTurns(plan, { request: 60, answer: 0 });
    expect(short.map((l) => l.turnIds)).toEqual([ids.plan!.slice(0, 1), ids.plan!.slice(2, 3)]);
    expect(short[0]!.text).toBe('set up the project with SQLite?');
    // A new turn in a finished session: its line is there at once (nothing stored to go stale).
    await ingestTurn(runtime, ME, {
      sessionId: 'plan',
      role: 'user',
      text: 'Can you add a monthly spending chart with Matplotlib?',
      at: T0 + DAY_MS,
    });
    expect((await sessionDigest(runtime, ME, 'plan'))!.lines.at(-1)!.text).toBe(
      'add a monthly spending chart with Matplotlib?',
    );
    await forget(t.store, ME, { text: 'Matplotlib' });
    expect((await sessionDigest(runtime, ME, 'plan'))!.lines.map((l) => l.text).join('\n')).not.toContain('Matplotlib');
    // Another user's session of the same id has no digest for this one; an unknown session none.
    expect(await sessionDigest(runtime, { userId: 'someone-else', agentId: null }, 'plan')).toBeNull();
    expect(await sessionDigest(runtime, ME, 'nope')).toBeNull();
  });

  it("are an agent's own: a space of another agent sees only the shared turns' lines", async () => {
    const t = await testStore({ extractor: { mode: 'heuristic' }, ner: { enabled: false } });
    const runtime = await createRuntime(t.store, {});
    await ingestTurn(
      runtime,
      { userId: 'craig', agentId: 'coder' },
      { sessionId: 's', role: 'user', text: 'Can you port the tracker to FastAPI?', at: T0 },
    );
    await ingestTurn(runtime, ME, { sessionId: 's', role: 'user', text: 'Can you explain budgets to me?', at: T0 + 1 });
    const other = (await sessionDigest(runtime, { userId: 'craig', agentId: 'writer' }, 's'))!;
    expect(other.lines.map((l) => l.text)).toEqual(['explain budgets to me?']);
    expect((await sessionDigest(runtime, { userId: 'craig', agentId: 'coder' }, 's'))!.lines).toHaveLength(2);
  });
});

describe('the timeline in context', () => {
  it("a question about progress gets the relevant sessions' lines, oldest first, dated, within the budget; others get none", async () => {
    const t = await testStore({ extractor: { mode: 'heuristic' }, ner: { enabled: false } });
    t.setNow(T0 + 30 * DAY_MS); // the conversation is in the past
    const runtime = await createRuntime(t.store, {});
    const ids = await converse(runtime);
    const context = await getContext(t.store, ME, {
      sessionId: 'now',
      query: 'Walk me through how my budget tracker progressed',
      tokenBudget: 400,
    });
    const entries = context.timeline.entries;
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(entries.map((e) => e.sessionId)).not.toContain('cooking');
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort((a, b) => a - b));
    expect(entries[0]!.turnIds).toEqual(ids.plan!.slice(0, 2));
    expect(context.markdown.startsWith(`${TIMELINE_HEADING}\n### ${new Date(T0).toISOString().slice(0, 10)}\n`)).toBe(
      true,
    );
    expect(context.markdown).toContain(`### ${new Date(T0 + 7 * DAY_MS).toISOString().slice(0, 10)}`);
    for (const entry of entries) expect(context.markdown).toContain(entry.line);
    expect(context.tokensUsed).toBe(countTokens(context.markdown));
    expect(context.tokensUsed).toBeLessThanOrEqual(400);
    // Every line the timeline writes is recognisable as the service's own text.
    for (const line of context.markdown.split('\n').slice(0, entries.length + 2))
      expect(isTimelineLine(line), line).toBe(true);
    expect(isTimelineLine('I want to deploy on Render')).toBe(false);
    // Pasted back whole, the block leaves nothing of the timeline to learn from.
    expect(withoutTimeline(`Look at this:\n${context.markdown}\nthanks`)).toBe(
      `Look at this:\n${context.markdown.slice(context.markdown.indexOf('\n## ') + 1)}\nthanks`,
    );
    // The turns the timeline shows are not repeated whole below it.
    const shown = new Set(entries.flatMap((e) => e.turnIds));
    expect(context.items.filter((i) => i.kind === 'turn' && shown.has(i.id))).toEqual([]);

    // The block sent back in a turn teaches nothing: its lines are the service's own text, even
    // a line that quotes a claim (here one said by someone else, so no fact of the user's has it yet).
    const quoting = context.markdown.replace(
      /\n(### .*)\n/,
      '\n$1\n- Dana: I moved to Lisbon and I work as a nurse at the city hospital. → That is a big change\n',
    );
    const pasted = await ingestTurn(runtime, ME, {
      sessionId: 'now',
      role: 'user',
      text: `Here is what you told me:\n${quoting}`,
    });
    expect(pasted.extracted).toEqual([]);

    const plain = await getContext(t.store, ME, {
      sessionId: 'now',
      query: 'Which database does the budget tracker use?',
      tokenBudget: 400,
    });
    expect(plain.timeline.entries).toEqual([]);
    expect(plain.markdown).not.toContain(TIMELINE_HEADING);
    // A small budget still holds: the timeline takes its share and the whole block fits.
    const small = await getContext(t.store, ME, {
      sessionId: 'now',
      query: 'Summarize the budget tracker work',
      tokenBudget: 60,
    });
    expect(small.tokensUsed).toBeLessThanOrEqual(60);
    expect(small.tokensUsed).toBe(countTokens(small.markdown));
  });
});

describe('model summaries', () => {
  let llm: Awaited<ReturnType<typeof startOpenAiServer>>;
  beforeAll(async () => (llm = await startOpenAiServer()));
  afterAll(() => llm.close());

  it('consolidation queues one as a job; the model writes it from the digest lines; the timeline stays extractive', async () => {
    const t = await testStore({
      extractor: { mode: 'heuristic' },
      ner: { enabled: false },
      llm: { endpoint: llm.url, model: 'digest-model', timeout_s: 2 },
    });
    t.setNow(T0 + 30 * DAY_MS); // the conversation is in the past
    const runtime = await createRuntime(t.store, {});
    await converse(runtime);
    // The page extraction gets the server's default answer ([]: nothing to learn).
    await consolidateSession(runtime, ME, 'plan');
    const queued = await t.store.sql.all<{ type: string; payload: string }>(
      "select type, payload from jobs where type = 'session.digest'",
    );
    expect(queued.map((j) => JSON.parse(j.payload))).toEqual([{ sessionId: 'plan', userId: 'craig' }]);
    llm.script({ reply: 'Craig set up a Flask budget tracker on SQLite and chose SQLAlchemy for its models.' });
    const before = llm.requests.length;
    await drainJobs(t.store, digestOnly(runtime));
    const prompt = llm.requests[before]!.body.messages[1].content as string;
    expect(prompt).toContain('set up the project with SQLite? → Start with a Flask app factory');
    expect(prompt).not.toContain('app = Flask');
    const digest = (await sessionDigest(runtime, ME, 'plan'))!;
    expect(digest.summary).toMatchObject({
      summary: 'Craig set up a Flask budget tracker on SQLite and chose SQLAlchemy for its models.',
      model: 'digest-model',
      turnCount: 4,
    });
    expect(digest.lines).toHaveLength(2);
    // Forgetting a turn of the session drops the summary (it may repeat what was forgotten).
    await forget(t.store, ME, { text: 'SQLAlchemy' });
    expect((await sessionDigest(runtime, ME, 'plan'))!.summary).toBeNull();
  });

  it('a failing endpoint fails the job, which retries; the consolidation, the turns and the extractive digest are untouched', async () => {
    const t = await testStore({
      extractor: { mode: 'heuristic' },
      ner: { enabled: false },
      llm: { endpoint: llm.url, model: 'digest-model', timeout_s: 1 },
    });
    t.setNow(T0 + 30 * DAY_MS); // the conversation is in the past
    const runtime = await createRuntime(t.store, {});
    await converse(runtime);
    llm.script({ status: 500 }, { status: 500 });
    const report = await consolidateSession(runtime, ME, 'security');
    expect(report.status).toBe('completed');
    llm.script({ status: 503 });
    const drained = await drainJobs(t.store, digestOnly(runtime));
    expect(drained).toMatchObject({ ran: 1, failed: 1, dead: 0 });
    const job = (await t.store.sql.get<{ status: string; attempts: number; lastError: string }>(
      "select status, attempts, last_error as lastError from jobs where type = 'session.digest'",
    ))!;
    expect(job).toMatchObject({ status: 'pending', attempts: 1 });
    expect(job.lastError).toMatch(/500|503|APIError|status/i);
    expect((await jobCounts(t.store)).dead).toBe(0);
    expect(await countRows(t.store, 'session_digests')).toBe(0);
    const digest = (await sessionDigest(runtime, ME, 'security'))!;
    expect(digest.summary).toBeNull();
    expect(digest.lines).toHaveLength(2);
    // Writes go on meanwhile, with no network call.
    const calls = llm.requests.length;
    await ingestTurn(runtime, ME, {
      sessionId: 'later',
      role: 'user',
      text: 'I moved the tracker to Postgres',
      autoExtract: false,
    });
    expect(llm.requests.length).toBe(calls);
  });
});
