// The user's profile as every adapter shows it (GraphQL, MCP, CLI, the inspector): standing
// instructions, preferences, profile facts and pinned memories of the caller's space; pinning
// any memory of that space, and editing an instruction. Ids are checked here; another space's
// memory is NOT_FOUND, as an unknown id.
import { editInstruction, getProfile, PROFILE_LIMIT, setPinned, type Profile } from '../core/memory/profile.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import type { Space } from '../core/kernel/space.ts';
import type { Store } from '../core/kernel/store.ts';
import { contentSchema, memoryIdSchema, parseInput } from '../core/kernel/validation.ts';
import { z } from 'zod';

export type { Profile };

const limitSchema = z.object({
  limit: z.number().int().min(1, 'must be at least 1').max(PROFILE_LIMIT, `must be at most ${PROFILE_LIMIT}`),
});
const idSchema = z.object({ id: memoryIdSchema });
const editSchema = z.object({ id: memoryIdSchema, content: contentSchema });

/** The caller's profile; `limit` caps each list (1 to 500). */
export async function readProfile(store: Store, space: Space, limit: number = PROFILE_LIMIT): Promise<Profile> {
  return getProfile(store, space, parseInput(limitSchema, { limit }).limit);
}

/** Pins (true) or unpins (false) a memory of the caller's space. */
export async function pinMemory(store: Store, space: Space, id: number, pinned: boolean): Promise<MemoryRow> {
  return setPinned(store, space, parseInput(idSchema, { id }).id, pinned);
}

/** Rewords an instruction of the caller's space; the old wording is kept as superseded history. */
export async function rewordInstruction(
  store: Store,
  space: Space,
  id: number,
  content: string,
): Promise<{ old: MemoryRow; memory: MemoryRow }> {
  const input = parseInput(editSchema, { id, content });
  return editInstruction(store, space, input.id, input.content);
}
