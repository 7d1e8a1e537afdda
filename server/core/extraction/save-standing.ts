// Saving standing memory (instructions, preferences, profile facts): protected from decay and GC
// from the start, deduplicated and superseded like facts (same slot: a new value or the opposite
// polarity replaces the old one), and an instruction also by topic: "actually, stop including
// versions" supersedes "always include version numbers when I ask about libraries".
import type { MemoryKind } from '../../../drizzle/schema.ts';
import { STANDING_KINDS } from '../../../drizzle/vocabulary.ts';
import { getMemory, memoryRows, supersede, type MemoryRow } from '../memory/memories.ts';
import { writableClause, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { normalizeText } from '../text/text.ts';
import type { TurnRow } from '../turns/turns.ts';
import { saveFacts, type Extracted, type FactToSave } from './save-facts.ts';
import type { StandingCandidate } from './standing-candidate.ts';
import { instructionTopic, topicOverlap } from './standing-slots.ts';

export const isStandingKind = (kind: MemoryKind): kind is (typeof STANDING_KINDS)[number] =>
  (STANDING_KINDS as readonly string[]).includes(kind);

/** Two instructions of opposite polarity that share this much of their topic contradict each other. */
const CONTRADICTS = 0.5;
/** How many of the space's active instructions a new one is checked against (newest first). */
const INSTRUCTIONS_CHECKED = 1_000;

const ACTIVE_INSTRUCTIONS = (where: string) =>
  `select ${memoryRows.columns} from memories m where ${where} and m.kind = 'instruction' and m.status = 'active' order by m.event_at desc, m.id desc limit ${INSTRUCTIONS_CHECKED}`;
const PROTECT_AS =
  'update memories set kind = ?, decay_rate = 0, confidence = 1, confidence_base = 1, importance = 1 where id = ?';

/** A standing candidate as a fact to save: its kind, protected, important. */
export function standingFact(
  c: StandingCandidate,
  turn: Pick<TurnRow, 'sessionId' | 'at'>,
  subject: string,
): FactToSave {
  return {
    content: c.content,
    kind: c.kind,
    importance: 1,
    decayRate: 0,
    tags: [c.kind],
    sessionId: turn.sessionId,
    eventAt: turn.at,
    toldAt: turn.at,
    rule: `standing:${c.rule}`,
    exclusive: c.exclusive,
    fact: { subject, slot: c.slot, value: c.value, polarity: c.polarity },
  };
}

/**
 * Saves standing candidates (and heuristic facts of a standing kind) from one turn. A candidate
 * merged into an older memory of kind fact (written before these kinds existed) makes it standing.
 */
export async function saveStanding(
  store: Store,
  space: Space,
  candidates: FactToSave[],
  turnId: number | null,
): Promise<Extracted[]> {
  const results: Extracted[] = [];
  for (const candidate of candidates) {
    const saved = await saveFacts(store, space, [candidate], turnId);
    for (const r of saved) {
      if (r.action !== 'superseded' && candidate.kind && r.memory.kind === 'fact' && r.memory.status === 'active') {
        await store.sql.run(PROTECT_AS, [candidate.kind, r.memory.id]);
        r.memory = (await getMemory(store, r.memory.id))!;
      }
    }
    results.push(...saved);
    const created = saved.find((r) => r.action === 'created' && r.memory.kind === 'instruction');
    if (created) results.push(...(await supersedeContradicted(store, space, created.memory)));
  }
  return results;
}

/** Active instructions of the space that `fresh` contradicts by topic (opposite polarity), superseded by it. */
async function supersedeContradicted(store: Store, space: Space, fresh: MemoryRow): Promise<Extracted[]> {
  const clause = writableClause(space, 'm');
  const rows = (await store.sql.values(ACTIVE_INSTRUCTIONS(clause.sql), clause.params)).map((raw) =>
    memoryRows.decode(raw),
  );
  const topic = instructionTopic(fresh.content);
  const out: Extracted[] = [];
  for (const old of rows) {
    if (old.id === fresh.id || old.eventAt > fresh.eventAt || normalizeText(old.content) === fresh.contentKey) continue;
    if (
      (old.polarity ?? 1) === (fresh.polarity ?? 1) ||
      topicOverlap(topic, instructionTopic(old.content)) < CONTRADICTS
    )
      continue;
    await supersede(store, old.id, fresh.id, { reason: 'conflict', slot: 'instruction' });
    out.push({
      action: 'superseded',
      memory: (await getMemory(store, old.id))!,
      rule: 'standing:instruction.contradicted',
    });
  }
  return out;
}
