// A memory edited by its owner: fields updated, protected (`confirm`), or replaced by a correction.
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { memories, type MemoryStatus } from '../../../drizzle/schema.ts';
import { Decision, logDecision } from './decisions.ts';
import { enqueueEmbedding } from '../vectors/embed-queue.ts';
import type { Space } from '../kernel/space.ts';
import { write, type Store } from '../kernel/store.ts';
import { normalizeText } from '../text/text.ts';
import { contentSchema, importanceSchema, parseInput, tagsSchema } from '../kernel/validation.ts';
import { archiveMemory, getMemory, insertMemory, requireMemory, supersede, type MemoryRow } from './memories.ts';

export const updateMemorySchema = z
  .object({
    status: z.enum(['active', 'archived'] satisfies MemoryStatus[]).optional(),
    content: contentSchema.optional(),
    tags: tagsSchema.optional(),
    importance: importanceSchema.optional(),
  })
  .refine(
    (v) => Object.values(v).some((x) => x !== undefined),
    'give at least one of status, content, tags, importance',
  );
export type UpdateMemoryInput = z.input<typeof updateMemorySchema>;
/** An UpdateMemoryInput as updateMemorySchema made it. */
export type MemoryPatch = z.output<typeof updateMemorySchema>;

export async function updateMemory(
  store: Store,
  space: Space,
  id: number,
  input: UpdateMemoryInput,
): Promise<MemoryRow> {
  return updateMemoryParsed(store, space, id, parseInput(updateMemorySchema, input));
}

/** updateMemory of a patch its caller parsed with updateMemorySchema already. */
export async function updateMemoryParsed(
  store: Store,
  space: Space,
  id: number,
  patch: MemoryPatch,
): Promise<MemoryRow> {
  return write(store, async () => {
    const existing = await requireMemory(store, space, id);
    const changes: Partial<typeof memories.$inferInsert> = {};
    const changed: string[] = [];
    if (patch.content !== undefined && patch.content !== existing.content) {
      changes.content = patch.content;
      changes.contentKey = normalizeText(patch.content);
      changed.push('content');
    }
    if (patch.tags !== undefined) (changes.tags = patch.tags), changed.push('tags');
    if (patch.importance !== undefined) (changes.importance = patch.importance), changed.push('importance');
    if (changed.length > 0) {
      await store.db.update(memories).set(changes).where(eq(memories.id, id)).run();
      if (changes.content !== undefined) await enqueueEmbedding(store, space, { memoryIds: [id] }); // its vector is stale
      await logDecision(store, { memoryId: id, action: Decision.Updated, detail: { fields: changed } });
    }
    if (patch.status === 'archived' && existing.status !== 'archived')
      await archiveMemory(store, id, { reason: 'manual' });
    if (patch.status === 'active' && existing.status !== 'active') {
      await store.db.update(memories).set({ status: 'active', validUntil: null }).where(eq(memories.id, id)).run();
      await logDecision(store, { memoryId: id, action: Decision.Restored, detail: { reason: 'manual' } });
    }
    return (await getMemory(store, id))!;
  });
}

/** Protects a memory (`confirm`): never decays, full confidence. */
export async function confirmMemory(store: Store, space: Space, id: number): Promise<MemoryRow> {
  return write(store, async () => {
    await requireMemory(store, space, id);
    await store.db
      .update(memories)
      .set({ decayRate: 0, confidence: 1, confidenceBase: 1 })
      .where(eq(memories.id, id))
      .run();
    await logDecision(store, { memoryId: id, action: Decision.Confirmed });
    return (await getMemory(store, id))!;
  });
}

/** Replaces a fact (`correct`): the old one is archived and superseded by the new one. */
export async function correctMemory(
  store: Store,
  space: Space,
  id: number,
  content: string,
): Promise<{ old: MemoryRow; memory: MemoryRow }> {
  return correctMemoryParsed(store, space, id, parseInput(contentSchema, content));
}

/** correctMemory of content its caller parsed with contentSchema already. */
export async function correctMemoryParsed(
  store: Store,
  space: Space,
  id: number,
  text: string,
): Promise<{ old: MemoryRow; memory: MemoryRow }> {
  return write(store, async () => {
    const old = await requireMemory(store, space, id);
    // The correction stays in the old fact's space (an agent's own fact stays that agent's).
    const memory = await insertMemory(
      store,
      { userId: old.userId, agentId: old.agentId },
      {
        content: text,
        kind: old.kind,
        layer: old.layer,
        importance: old.importance,
        tags: old.tags,
        sessionId: old.sessionId,
        fact: old.subject && old.slot ? { subject: old.subject, slot: old.slot, value: text, polarity: 1 } : undefined,
      },
    );
    await supersede(store, old.id, memory.id, { reason: 'corrected' });
    // A pinned memory stays pinned in its new wording; standing memory stays protected (its kind's rate).
    if (old.pinned) await store.sql.run('update memories set pinned = 1 where id = ?', [memory.id]);
    return { old: (await getMemory(store, id))!, memory: old.pinned ? (await getMemory(store, memory.id))! : memory };
  });
}
