// Forget is a hard delete, for privacy (docs/architecture.md#removal): the row, its FTS entry (trigger), vectors, links,
// junction rows and the text-bearing log entries go. One `deleted` entry without text remains.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { entities, memories, memoryEntities, memoryEvents, turnEntities, turns } from '../../../drizzle/schema.ts';
import { Decision, logDecision } from './decisions.ts';
import { dropSummariesOfTurns, dropSummariesSaying } from '../digests/summaries.ts';
import { dropUnlinkedEntities } from '../entities/entities.ts';
import { badInput } from '../kernel/errors.ts';
import { requireMemory } from './memories.ts';
import { visibleIn, type Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';
import { escapeLike, normalizeText } from '../text/text.ts';
import { parseInput } from '../kernel/validation.ts';
import { dropFromIndexes } from '../vectors/vector-index.ts';
import { LEGACY_VECTOR_TABLES, VECTOR_TABLES, type VectorTable } from '../vectors/vector-state.ts';

export { VECTOR_TABLES } from '../vectors/vector-state.ts';

/**
 * A row's vector goes with it (the tables cascade too, but this also clears the in-memory index
 * of this process, so the forgotten row's bits do not stay in memory), and from a vec0 table of
 * an earlier release that vectors were not turned on to move yet.
 */
async function deleteVectors(store: Store, table: VectorTable, ids: number[]) {
  if (ids.length === 0) return;
  const name = VECTOR_TABLES[table];
  const list = JSON.stringify(ids);
  const users = await store.sql.all<{ userId: string }>(
    `select distinct user_id as userId from ${name} where id in (select value from sm_ids(?))`,
    [list],
  );
  await store.sql.run(`delete from ${name} where id in (select value from sm_ids(?))`, [list]);
  dropFromIndexes(
    store,
    table,
    users.map((row) => row.userId),
    ids,
  );
  const legacy = LEGACY_VECTOR_TABLES[table];
  const { legacyVectorTables, tableExists } = store.dialect.statements;
  if (!legacyVectorTables || !(await store.sql.get(tableExists, [legacy]))) return;
  const remove = `delete from ${legacy} where rowid = ?`;
  for (const id of ids) await store.sql.run(remove, [BigInt(id)]);
}

/** Entity mention counts drop with the junction rows that go, never below zero. */
async function releaseEntities(
  store: Store,
  junction: typeof memoryEntities | typeof turnEntities,
  ownerIds: number[],
) {
  const owner = 'memoryId' in junction ? junction.memoryId : junction.turnId;
  const links = await store.db.select({ entityId: junction.entityId }).from(junction).where(inArray(owner, ownerIds));
  for (const { entityId } of links) {
    await store.db
      .update(entities)
      .set({ mentionCount: sql`case when ${entities.mentionCount} > 0 then ${entities.mentionCount} - 1 else 0 end` })
      .where(eq(entities.id, entityId))
      .run();
  }
  return links.map((link) => link.entityId);
}

/** Hard-deletes memories; `reason` lands in the one log entry that remains. */
export async function deleteMemories(store: Store, ids: number[], reason: string) {
  if (ids.length === 0) return;
  const entityIds = await releaseEntities(store, memoryEntities, ids);
  await deleteVectors(store, 'memories', ids);
  await store.db.delete(memoryEvents).where(inArray(memoryEvents.memoryId, ids)).run();
  const rows = await store.db.delete(memories).where(inArray(memories.id, ids)).returning();
  await dropUnlinkedEntities(store, entityIds);
  for (const row of rows)
    await logDecision(store, { memoryId: row.id, action: Decision.Deleted, detail: { reason }, snapshot: row });
}

async function deleteTurns(store: Store, ids: number[]) {
  if (ids.length === 0) return;
  const entityIds = await releaseEntities(store, turnEntities, ids);
  await deleteVectors(store, 'turns', ids);
  await dropSummariesOfTurns(store, ids);
  await store.db.delete(turns).where(inArray(turns.id, ids)).run();
  await dropUnlinkedEntities(store, entityIds);
}

export const forgetSchema = z
  .object({ id: z.number().int().positive().nullish(), text: z.string().trim().min(1, 'must not be empty').nullish() })
  .refine((v) => (v.id == null) !== (v.text == null), 'give exactly one of id or text');
export type ForgetInput = z.input<typeof forgetSchema>;
export type ForgetResult = { memoryIds: number[]; turnIds: number[] };

/**
 * By id: that memory. By text: every memory (any status) and every turn of the space whose text
 * contains it, case-insensitively, so a forgotten detail leaves no copy in history either.
 */
export async function forget(store: Store, space: Space, input: ForgetInput): Promise<ForgetResult> {
  const target = parseInput(forgetSchema, input);
  return write(store, async () => {
    if (target.id != null) {
      await requireMemory(store, space, target.id);
      await deleteMemories(store, [target.id], 'forgotten');
      return { memoryIds: [target.id], turnIds: [] };
    }
    const key = normalizeText(target.text!);
    if (!key) throw badInput('text: has nothing to match (no letters or digits)');
    const pattern = `% ${escapeLike(key)} %`;
    const memoryIds = (
      await store.db
        .select({ id: memories.id, userId: memories.userId, agentId: memories.agentId })
        .from(memories)
        .where(
          and(
            eq(memories.userId, space.userId),
            sql`(' ' || ${memories.contentKey} || ' ') like ${pattern} escape '\\'`,
          ),
        )
    )
      .filter((r) => visibleIn(space, r))
      .map((r) => r.id);
    // sm_normalize is normalizeText registered as an SQL function when the store opens.
    const turnIds = (
      await store.db
        .select({ id: turns.id, userId: turns.userId, agentId: turns.agentId })
        .from(turns)
        .where(
          and(
            eq(turns.userId, space.userId),
            sql`(' ' || sm_normalize(${turns.text}) || ' ') like ${pattern} escape '\\'`,
          ),
        )
    )
      .filter((r) => visibleIn(space, r))
      .map((r) => r.id);
    await deleteMemories(store, memoryIds, 'forgotten');
    await deleteTurns(store, turnIds);
    await dropSummariesSaying(store, space, pattern);
    return { memoryIds, turnIds };
  });
}
