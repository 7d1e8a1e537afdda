// A real in-memory store with a movable clock, for core tests.
import { DAY_MS } from '../../server/core/clock.ts';
import { openStore } from '../../server/db/open.ts';

export const T0 = Date.UTC(2026, 0, 1, 12);

export async function testStore(config: Record<string, unknown> = {}, path = ':memory:') {
  let now = T0;
  const clock = { now: () => now };
  const store = await openStore({ path, clock, env: {}, config });
  return {
    store,
    advanceDays: (days: number) => (now += days * DAY_MS),
    setNow: (at: number) => (now = at),
  };
}
