// A store with heuristic extraction and a clock that moves a minute per turn: `say` sends a
// turn through ingestTurn as an app would, `jump` skips days between conversations.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { DAY_MS } from '../../server/core/kernel/clock.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { T0, testStore } from './store.ts';

export async function conversation(config: Record<string, unknown> = {}) {
  const t = await testStore({ extractor: { mode: 'heuristic' }, ...config });
  const runtime = await createRuntime(t.store, {});
  let at = T0;
  const say = async (sessionId: string, name: string, text: string, role: 'user' | 'assistant' = 'user') => {
    at += 60_000;
    t.setNow(at);
    return (await ingestTurn(runtime, DEFAULT_SPACE, { sessionId, role, name, text, at })).turn;
  };
  return { ...t, say, jump: (days: number) => (at += days * DAY_MS) };
}
