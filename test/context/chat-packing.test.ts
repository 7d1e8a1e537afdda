// In a user's chat with an assistant the block is packed with the chat values: the facts drawn from
// one long message count by their own rank, so they do not crowd out the next message found.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { getContext } from '../../server/core/context/context.ts';
import { CHAT_PACK_TUNING, DEFAULT_PACK_TUNING } from '../../server/core/context/context-pack.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore } from '../helpers/store.ts';

const LONG_MESSAGE = [
  'I am preparing the billing deployment and I keep my notes here.',
  'I use PostgreSQL 15 in production.',
  'I drive a blue Fiat to the office.',
  'I started learning the cello last month.',
  'I adopted a cat named Miso.',
  'I run every morning before work.',
  'I finished the billing migration scripts on Friday.',
  'I moved the staging database to a bigger disk.',
].join(' ');

async function chat() {
  const { store } = await testStore({ extractor: { mode: 'heuristic' } });
  const runtime = await createRuntime(store, {});
  const say = (sessionId: string, role: 'user' | 'assistant', text: string) =>
    ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role, text });
  const long = await say('s1', 'user', LONG_MESSAGE);
  await say('s1', 'assistant', 'Thanks for the notes, they help me follow the project.');
  const deadline = await say('s2', 'user', 'The billing deployment deadline moved to March 3, with a two hour window.');
  await say('s2', 'assistant', 'Noted: March 3 with a two hour window.');
  return { store, long, deadline };
}

describe('packing a chat with an assistant', () => {
  it("takes the messages that match before a long message's asides", async () => {
    const { store, long, deadline } = await chat();
    const facts = long.extracted.filter((e) => e.memory.kind === 'fact');
    expect(facts.length).toBeGreaterThanOrEqual(4);
    const input = { sessionId: 'reader', query: 'When is the billing deployment deadline?', tokenBudget: 120 };
    const block = await getContext(store, DEFAULT_SPACE, input);
    const turnIds = (c: typeof block) => c.items.filter((i) => i.kind === 'turn').map((i) => i.id);
    expect(turnIds(block)).toContain(deadline.turn.id);
    // The values for conversations between people value each of those facts as its turn's rank and take them first.
    // The message's asides, which share no word with the question, stay out; valued as their turn's
    // rank (the values for conversations between people) they fill the block.
    const asides = new Set(
      facts.filter((f) => !/billing|deploy|deadline/i.test(f.memory.content)).map((f) => f.memory.id),
    );
    const asidesIn = (c: typeof block) => c.items.filter((i) => i.kind === 'fact' && asides.has(i.id)).length;
    expect(asidesIn(block)).toBe(0);
    const asPeople = await getContext(store, DEFAULT_SPACE, input, { tuning: DEFAULT_PACK_TUNING });
    expect(asidesIn(asPeople)).toBeGreaterThanOrEqual(3);
    expect(CHAT_PACK_TUNING.projected).toBeLessThan(DEFAULT_PACK_TUNING.projected);
  });
});
