// Two users (alice, bob) on one store, and a `say` that adds a turn a minute after the last one
// through the ingest service, as the API does: for the tests of spaces.
import type { Space } from '../../server/core/kernel/space.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';
import { testStore } from './store.ts';

export const ALICE: Space = { userId: 'alice', agentId: null };
export const BOB: Space = { userId: 'bob', agentId: null };

type Opened = { store: Store; setNow: (at: number) => number };

/** `open` picks the store (the run's backend by default; a SQLite-only file passes its own). */
export async function twoUsers<T extends Opened>(
  config: Record<string, unknown> = {},
  path?: string,
  open: (config: Record<string, unknown>, path?: string) => Promise<T> = testStore as never,
) {
  const t = await open(config, path);
  const runtime = await createRuntime(t.store, {});
  let at = t.store.clock.now();
  const say = async (space: Space, sessionId: string, text: string, name?: string) => {
    at += 60_000;
    t.setNow(at);
    return ingestTurn(runtime, space, { sessionId, role: 'user', name, text, at });
  };
  return { ...t, runtime, say };
}
