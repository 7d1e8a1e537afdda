// The append-only decision log (D9) that `explain` reads and subscriptions publish.
import { desc, eq, inArray } from 'drizzle-orm';
import { memories, memoryEvents } from '../../drizzle/schema.ts';
import { groupBy } from './group-by.ts';
import { prepared, publish, type Store } from './store.ts';

export const Decision = {
  Created: 'created',
  Merged: 'merged',
  Updated: 'updated',
  Promoted: 'promoted',
  Archived: 'archived',
  Restored: 'restored',
  Decayed: 'decayed',
  Confirmed: 'confirmed',
  Superseded: 'superseded',
  Deleted: 'deleted',
} as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

export type DecisionRow = typeof memoryEvents.$inferSelect;

export function logDecision(
  store: Store,
  memoryId: number,
  action: Decision,
  detail: Record<string, unknown> = {},
  snapshot?: typeof memories.$inferSelect,
) {
  const at = store.clock.now();
  // The entry belongs to the memory's user; a deleted memory's comes from its snapshot.
  const owner = snapshot
    ? { userId: snapshot.userId, agentId: snapshot.agentId }
    : (prepared(store, 'decision.owner', () => store.sqlite.prepare('select user_id as userId, agent_id as agentId from memories where id = ?')).get(memoryId) as
        | { userId: string; agentId: string | null }
        | undefined);
  if (!owner) return; // nothing to log about: the memory is gone and no snapshot says whose it was
  prepared(store, 'decision.insert', () => store.sqlite.prepare('insert into memory_events (user_id, memory_id, action, detail, at) values (?, ?, ?, ?, ?)')).run(
    owner.userId,
    memoryId,
    action,
    JSON.stringify(detail),
    at,
  );
  publish(store, { type: 'memory', action, memoryId, at, detail, snapshot, userId: owner.userId, agentId: owner.agentId });
}

export function listDecisions(store: Store, memoryId: number, limit = 10): DecisionRow[] {
  return store.db
    .select()
    .from(memoryEvents)
    .where(eq(memoryEvents.memoryId, memoryId))
    .orderBy(desc(memoryEvents.id))
    .limit(limit)
    .all();
}

/** Newest first, per memory. */
export function decisionsByMemory(store: Store, memoryIds: readonly number[]): Map<number, DecisionRow[]> {
  const rows = store.db
    .select()
    .from(memoryEvents)
    .where(inArray(memoryEvents.memoryId, [...memoryIds]))
    .orderBy(desc(memoryEvents.id))
    .all();
  return groupBy(rows, (row) => row.memoryId);
}
