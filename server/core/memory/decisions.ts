// The append-only decision log (docs/architecture.md#provenance) that `explain` reads and subscriptions publish.
import { desc, eq, inArray } from 'drizzle-orm';
import { type memories, memoryEvents } from '../../../drizzle/schema.ts';
import { groupBy } from '../kernel/group-by.ts';
import { publish, type Store } from '../kernel/store.ts';

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
  Pinned: 'pinned',
  Unpinned: 'unpinned',
} as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

export type DecisionRow = typeof memoryEvents.$inferSelect;

const OWNER = 'select user_id as userId, agent_id as agentId from memories where id = ?';
const INSERT_DECISION = 'insert into memory_events (user_id, memory_id, action, detail, at) values (?, ?, ?, ?, ?)';

export type DecisionInput = {
  memoryId: number;
  action: Decision;
  detail?: Record<string, unknown>;
  /** The row as it was, for a memory deleted with the decision: whose it was comes from it. */
  snapshot?: typeof memories.$inferSelect;
  /** Whose memory it is, when the caller knows (it just wrote the row): saves reading it back. */
  known?: { userId: string; agentId: string | null };
};

/** Records a decision about a memory in its history and announces it to subscribers. */
export async function logDecision(store: Store, input: DecisionInput) {
  const { memoryId, action, detail = {}, snapshot, known } = input;
  const at = store.clock.now();
  // The entry belongs to the memory's user; a deleted memory's comes from its snapshot.
  const owner = snapshot
    ? { userId: snapshot.userId, agentId: snapshot.agentId }
    : (known ?? (await store.sql.get<{ userId: string; agentId: string | null }>(OWNER, [memoryId])));
  if (!owner) return; // nothing to log about: the memory is gone and no snapshot says whose it was
  await store.sql.run(INSERT_DECISION, [owner.userId, memoryId, action, JSON.stringify(detail), at]);
  publishDecision(store, { memoryId, action, detail, at, owner, snapshot });
}

/** The event of a decision written (by logDecision, or by a statement that wrote its row along with others). */
export function publishDecision(
  store: Store,
  d: {
    memoryId: number;
    action: Decision;
    detail: Record<string, unknown>;
    at: number;
    owner: { userId: string; agentId: string | null };
    snapshot?: typeof memories.$inferSelect;
  },
) {
  publish(store, {
    type: 'memory',
    action: d.action,
    memoryId: d.memoryId,
    at: d.at,
    detail: d.detail,
    snapshot: d.snapshot,
    userId: d.owner.userId,
    agentId: d.owner.agentId,
  });
}

export async function listDecisions(store: Store, memoryId: number, limit = 10): Promise<DecisionRow[]> {
  return store.db
    .select()
    .from(memoryEvents)
    .where(eq(memoryEvents.memoryId, memoryId))
    .orderBy(desc(memoryEvents.id))
    .limit(limit)
    .all();
}

/** Newest first, per memory. */
export async function decisionsByMemory(
  store: Store,
  memoryIds: readonly number[],
): Promise<Map<number, DecisionRow[]>> {
  const rows = await store.db
    .select()
    .from(memoryEvents)
    .where(inArray(memoryEvents.memoryId, [...memoryIds]))
    .orderBy(desc(memoryEvents.id));
  return groupBy(rows, (row) => row.memoryId);
}
