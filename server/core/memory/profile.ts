// The user's standing memory as one page: instructions, preferences and profile facts (kinds of
// their own, protected), and pinned memories of any kind; pinning, and editing an instruction
// (the edit supersedes the old wording, kept as history). docs/memory-kinds.md tells the story.
import { STANDING_KINDS } from '../../../drizzle/vocabulary.ts';
import { Decision, logDecision } from './decisions.ts';
import { badInput } from '../kernel/errors.ts';
import { getMemory, memoryRows, requireMemory, type MemoryRow } from './memories.ts';
import { correctMemory } from './memory-edits.ts';
import { DEFAULT_SPACE, spaceClause, type Space } from '../kernel/space.ts';
import { write, type SqlParam, type Store } from '../kernel/store.ts';

export type Profile = {
  instructions: MemoryRow[];
  preferences: MemoryRow[];
  profile: MemoryRow[];
  /** Pinned memories of other kinds (facts, reflections): always in context too. */
  pinned: MemoryRow[];
  /** Active standing memories in all (the lists stop at `limit` each). */
  total: number;
};

/** Most of each list a profile read returns. */
export const PROFILE_LIMIT = 500;

const PROFILE_ROWS = `select ${memoryRows.columns} from memories m
  where ${spaceClause(DEFAULT_SPACE, 'm').sql} and m.status = 'active' and (m.kind in (${STANDING_KINDS.map((k) => `'${k}'`).join(', ')}) or m.pinned = 1)
  order by m.pinned desc, m.event_at desc, m.id desc`;

/** The space's active standing memory, newest first within each kind (pinned first). An agent's space holds its own and the user's shared ones. */
export async function getProfile(store: Store, space: Space, limit = PROFILE_LIMIT): Promise<Profile> {
  const rows = (await store.sql.values(PROFILE_ROWS, spaceClause(space, 'm').params as SqlParam[])).map((raw) =>
    memoryRows.decode(raw),
  );
  const of = (kind: MemoryRow['kind']) => rows.filter((m) => m.kind === kind).slice(0, limit);
  return {
    instructions: of('instruction'),
    preferences: of('preference'),
    profile: of('profile'),
    pinned: rows
      .filter((m) => m.pinned && m.kind !== 'instruction' && m.kind !== 'preference' && m.kind !== 'profile')
      .slice(0, limit),
    total: rows.length,
  };
}

const SET_PINNED = 'update memories set pinned = ? where id = ?';

/**
 * Pins (always in context, exempt from GC and decay) or unpins a memory of any kind. Another
 * space's memory is NOT_FOUND, as an unknown id; an archived one cannot be pinned.
 */
export async function setPinned(store: Store, space: Space, id: number, pinned: boolean): Promise<MemoryRow> {
  return write(store, async () => {
    const memory = await requireMemory(store, space, id);
    if (pinned && memory.status !== 'active')
      throw badInput(`id: memory ${id} is archived: restore it (updateMemory status ACTIVE) before pinning it`);
    if (memory.pinned !== pinned) {
      await store.sql.run(SET_PINNED, [pinned ? 1 : 0, id]);
      await logDecision(store, { memoryId: id, action: pinned ? Decision.Pinned : Decision.Unpinned });
    }
    return (await getMemory(store, id))!;
  });
}

/**
 * New wording for a standing instruction: the old one is archived and superseded by the new one
 * (same kind, pin kept), so its history stays readable. Only an active instruction may be edited.
 */
export async function editInstruction(
  store: Store,
  space: Space,
  id: number,
  content: string,
): Promise<{ old: MemoryRow; memory: MemoryRow }> {
  const memory = await requireMemory(store, space, id);
  if (memory.kind !== 'instruction')
    throw badInput(`id: memory ${id} is a ${memory.kind}, not an instruction (correctMemory changes any memory)`);
  if (memory.status !== 'active')
    throw badInput(`id: memory ${id} is archived: only an active instruction can be edited`);
  return correctMemory(store, space, id, content);
}
