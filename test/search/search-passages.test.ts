// Long turns are ranked and quoted by passage: the part of an assistant's long answer that
// matches is what search returns beside the turn and what the context quotes (with the turn's
// date and role); a code block is one passage, whole. Runs on every backend.
import { describe, expect, it } from 'vitest';
import { getContext } from '../../server/core/context/context.ts';
import { search } from '../../server/core/search/index.ts';
import { PASSAGE_MIN_CHARS, passagesOf, quoteOf } from '../../server/core/text/passages.ts';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { T0, testStore } from '../helpers/store.ts';

const CODE =
  '```dockerfile\nFROM python:3.11-slim\nRUN pip install --no-cache-dir poetry==1.8.2\nCOPY pyproject.toml poetry.lock ./\nRUN poetry install --only main\n```';
const NEEDLE = 'For the staging cluster, rotate the Grafana admin credentials every thirty days through the vault.';

/** An assistant's long answer: generic steps, the needle sentence in the middle, a code block near the end. */
function longAnswer(): string {
  const steps = Array.from(
    { length: 14 },
    (_, i) =>
      `### Step ${i + 1}\nReview the pipeline stage number ${i + 1} and write down what it needs before moving on. Keep the notes short and share them with the team.`,
  );
  steps.splice(7, 0, NEEDLE);
  return `Here is a plan for your deployment work.\n\n${steps.join('\n\n')}\n\nThe image I suggest:\n\n${CODE}\n\nLet me know how it goes.`;
}

describe('passagesOf', () => {
  it('keeps a short text whole, cuts a long one into runs of sentences, and keeps a code block whole', () => {
    expect(passagesOf('Short turn. Two sentences.')).toEqual([{ start: 0, end: 26 }]);
    const text = longAnswer();
    expect(text.length).toBeGreaterThan(PASSAGE_MIN_CHARS * 2);
    const parts = passagesOf(text).map((p) => text.slice(p.start, p.end));
    expect(parts).toContain(CODE);
    expect(parts.filter((p) => p.includes(NEEDLE))).toHaveLength(1);
    for (const part of parts) if (part !== CODE) expect(part.length).toBeLessThanOrEqual(400);
    // Every passage is text of the turn, in order, none overlapping.
    const spans = passagesOf(text);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
  });

  it('marks where a quote is cut', () => {
    const text = longAnswer();
    expect(quoteOf('A short turn.', undefined)).toBe('A short turn.');
    expect(quoteOf(text, NEEDLE)).toBe(`… ${NEEDLE} …`);
    expect(quoteOf(text).startsWith('Here is a plan')).toBe(true);
  });
});

describe('long turns in search and context', () => {
  async function setup() {
    const t = await testStore({ extractor: { mode: 'heuristic' } });
    const runtime = await createRuntime(t.store, {});
    let at = T0;
    const say = async (role: 'user' | 'assistant', text: string) => {
      at += 60_000;
      t.setNow(at);
      return (await ingestTurn(runtime, DEFAULT_SPACE, { sessionId: 'deploy', role, text, at })).turn;
    };
    await say('user', 'Can you help me plan the deployment of my Flask app?');
    const answer = await say('assistant', longAnswer());
    await say('user', 'Thanks, I will start with the pipeline review.');
    await say('assistant', 'Good luck with the review of each stage.');
    t.setNow(at + 86_400_000);
    return { ...t, answer };
  }

  it('returns the matching passage of a long turn with the hit, and the context quotes it with the turn date and role', async () => {
    const { store, answer } = await setup();
    try {
      const { hits } = await search(store, DEFAULT_SPACE, {
        query: 'how often do we rotate the Grafana admin credentials',
        kinds: ['turn'],
      });
      expect(hits[0]?.id).toBe(answer.id);
      expect(hits[0]?.passage).toContain(NEEDLE);
      expect(hits[0]!.passage!.length).toBeLessThan(500);
      const context = await getContext(store, DEFAULT_SPACE, {
        sessionId: 'later',
        query: 'how often do we rotate the Grafana admin credentials',
        tokenBudget: 300,
      });
      const line = context.items.find((item) => item.kind === 'turn' && item.id === answer.id)?.line;
      expect(line?.startsWith(`[${new Date(answer.at).toISOString().slice(0, 10)}] assistant: … `)).toBe(true);
      expect(line).toContain(NEEDLE);
      expect(line!.endsWith(' …')).toBe(true);
      expect(line!.length).toBeLessThan(500);
      expect(context.markdown).toContain(line);
      expect(context.markdown).not.toContain('Here is a plan for your deployment work');
    } finally {
      await closeStore(store);
    }
  });

  it('ranks a code block as one passage, whole', async () => {
    const { store, answer } = await setup();
    try {
      const { hits } = await search(store, DEFAULT_SPACE, {
        query: 'which poetry version do we install in the image',
        kinds: ['turn'],
      });
      // The answer, or the user's request just before it (a chat's answer lifts its question).
      const hit = hits.slice(0, 2).find((h) => h.id === answer.id);
      expect(hit?.passage).toBe(CODE);
    } finally {
      await closeStore(store);
    }
  });

  it('leaves short turns without a passage', async () => {
    const { store } = await setup();
    try {
      const { hits } = await search(store, DEFAULT_SPACE, { query: 'pipeline review', kinds: ['turn'] });
      const short = hits.find((h) => h.text.startsWith('Thanks'));
      expect(short).toBeDefined();
      expect(short!.passage).toBeUndefined();
    } finally {
      await closeStore(store);
    }
  });
});
