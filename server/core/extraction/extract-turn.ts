// Turning a stored turn into memories with the heuristic extractor, and applying the actions
// an LLM proposed for it. Both run inside a write transaction.
import { z } from 'zod';
import { getMemory, reinforce } from '../memory/memories.ts';
import { spaceOfRow, visibleIn, type Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import type { TurnRow } from '../turns/turns.ts';
import { entityKey, EntityType } from '../entities/types.ts';
import { describeEntity, linkEntities } from '../entities/entities.ts';
import { mentionsOf } from '../turns/turn-dates.ts';
import { normalizeText } from '../text/text.ts';
import { extractAssistantFacts, extractFacts, type FactCandidate, type RelatedEntity } from './heuristics.ts';
import { proseOf } from './fact-filter.ts';
import { archiveFacts, saveFacts, type Extracted, type FactToSave } from './save-facts.ts';
import { saveStanding, standingFact } from './save-standing.ts';
import { recogniseStanding } from './standing.ts';
import type { StandingCandidate } from './standing-candidate.ts';
import { instructionPolarity, instructionSlot, standingKindOfSlot } from './standing-slots.ts';

/** Facts are about the speaker: the turn's name, or "User" when it has none. */
export const subjectOf = (turn: Pick<TurnRow, 'name'>) => turn.name ?? 'User';

/** The name of the session's user, for facts an assistant's turn states about them ("User" when unnamed). */
const SESSION_USER_NAME =
  "select name from turns where user_id = ? and session_id = ? and role = 'user' and id < ? order by id desc limit 1";

async function assistantFacts(store: Store, turn: TurnRow): Promise<FactCandidate[]> {
  const facts = extractAssistantFacts(turn.text, 'User', turn.at);
  if (facts.length === 0) return facts;
  const name = await store.sql.pluck<string | null>(SESSION_USER_NAME, [turn.userId, turn.sessionId, turn.id]);
  return name ? extractAssistantFacts(turn.text, name, turn.at) : facts;
}

/** At most this many of a turn's clauses are looked up among the user's memories. */
const PASTED_LOOKUPS = 32;

/**
 * The facts whose clause is, word for word, a memory the space already holds: the service's own
 * text sent back (a memory quoted in a turn or system prompt) is not news. One indexed read.
 */
async function withoutPasted(store: Store, turn: TurnRow, facts: FactCandidate[]): Promise<FactCandidate[]> {
  const keys = [...new Set(facts.map((f) => normalizeText(f.clause)).filter(Boolean))].slice(0, PASTED_LOOKUPS);
  if (keys.length === 0) return facts;
  const sql = `select content_key from memories where user_id = ? and content_key in (${keys.map(() => '?').join(', ')})`;
  const known = new Set(
    await store.sql.values(sql, [turn.userId, ...keys]).then((rows) => rows.map((r) => String(r[0]))),
  );
  return known.size === 0 ? facts : facts.filter((f) => !known.has(normalizeText(f.clause)));
}

export async function extractHeuristically(store: Store, turn: TurnRow): Promise<Extracted[]> {
  if (turn.role !== 'user' && turn.role !== 'assistant') return [];
  const subject = subjectOf(turn);
  const prose = turn.role === 'user' ? proseOf(turn.text) : '';
  const read =
    turn.role === 'assistant'
      ? await assistantFacts(store, turn)
      : extractFacts(turn.text, subject, turn.at, { mentions: mentionsOf(store, turn), prose });
  const all = await withoutPasted(store, turn, read);
  // Standing memory (the user's own turns only) before the fact rules' output is saved: a fact said
  // by a clause that is already an instruction, preference or profile fact is that one, not a second
  // memory. The fact rules say a name, a home, a job or a diet best (dates, exclusivity, health tags): those stay theirs.
  const profiled = all.filter((f) => f.subject === subject && standingKindOfSlot(f.slot) === 'profile');
  const recognised = (turn.role === 'user' ? recogniseStanding(prose, subject) : []).filter(
    (s) => s.kind !== 'profile' || !profiled.some((f) => saidAsStanding(f, [s])),
  );
  // "I have a cat named Luna": the profile fact "has a cat" and the fact that says more are one
  // memory, the fuller one, of the standing kind.
  const fuller = new Map<FactCandidate, StandingCandidate>();
  const standing = recognised.filter((s) => {
    const fact = s.kind === 'instruction' ? undefined : all.find((f) => f.subject === subject && saysMore(f, s));
    if (fact) fuller.set(fact, s);
    return !fact;
  });
  const facts = all.filter((f) => fuller.has(f) || !saidAsStanding(f, standing));
  const candidates = facts.map((f) => ({
    content: f.content,
    tags: f.tags,
    sessionId: turn.sessionId,
    eventAt: f.eventAt ?? turn.at,
    toldAt: turn.at,
    rule: `heuristic:${f.rule}`,
    exclusive: f.exclusive,
    // Allergies, intolerances and diets matter every time: important, and protected from decay.
    ...(f.protect ? { importance: 1, decayRate: 0 } : {}),
    fact: { subject: f.subject, slot: f.slot, value: f.value, polarity: f.polarity },
  }));
  const space = spaceOfRow(turn);
  // A fact of a profile or preference slot ("lives in", "likes") is standing memory too.
  // Only the speaker's own: "my sister lives in Porto" is a fact about the sister, not the user's profile.
  const byKind = candidates.map((c, i) => ({
    ...c,
    kind:
      fuller.get(facts[i]!)?.kind ??
      (turn.role === 'user' && c.fact.subject === subject ? (standingKindOfSlot(c.fact.slot) ?? undefined) : undefined),
  }));
  const extracted = await saveStanding(
    store,
    space,
    [
      ...standing.map((c) => standingFact(c, turn, subject)),
      ...byKind.filter((c) => c.kind).map((c) => ({ ...c, importance: 1, decayRate: 0 })),
    ],
    turn.id,
  );
  extracted.push(
    ...(await saveFacts(
      store,
      space,
      byKind.filter((c) => !c.kind),
      turn.id,
    )),
  );
  const related = facts.flatMap((f) => f.related ?? []);
  if (related.length > 0 && store.config.ner.enabled) await linkRelated(store, space, turn, related, extracted);
  return extracted;
}

const wordsOf = (text: string) =>
  new Set(
    normalizeText(text)
      .split(' ')
      .filter((w) => w.length > 2),
  );

/** Whether a heuristic fact holds every word of a standing candidate of the same turn, and more. */
function saysMore(fact: { content: string }, standing: StandingCandidate): boolean {
  const theirs = wordsOf(standing.content);
  const mine = wordsOf(fact.content);
  if (theirs.size === 0 || mine.size <= theirs.size) return false;
  for (const w of theirs) if (!mine.has(w)) return false;
  return true;
}

/** Whether a heuristic fact says what a standing candidate of the same turn says already (same slot, or mostly its words). */
function saidAsStanding(fact: { slot: string; content: string }, standing: StandingCandidate[]): boolean {
  if (standing.length === 0) return false;
  const words = new Set(
    normalizeText(fact.content)
      .split(' ')
      .filter((w) => w.length > 3),
  );
  return standing.some((s) => {
    if (s.slot === fact.slot) return true;
    const theirs = new Set(normalizeText(s.content).split(' '));
    let shared = 0;
    for (const w of words) if (theirs.has(w)) shared++;
    return words.size > 0 && shared / words.size >= 0.6;
  });
}

/**
 * Named relatives, friends and pets ("my sister Maria") are entities from the first mention,
 * linked to the turn and to the facts that name them, and described by the relation ("User's
 * sister") while nothing better describes them.
 */
async function linkRelated(
  store: Store,
  space: Space,
  turn: TurnRow,
  related: RelatedEntity[],
  extracted: Extracted[],
) {
  const unique = [...new Map(related.map((r) => [r.name, r])).values()];
  const mentions = unique.map((r) => ({
    name: r.name,
    type: r.type === 'other' ? EntityType.Other : EntityType.Person,
  }));
  const { entities } = await linkEntities(store, space, { turnId: turn.id }, mentions);
  for (const [i, entity] of entities.entries()) {
    const relation =
      unique.find((r) => entityKey(r.name, entity.type) === entity.nameKey || entity.aliases.includes(r.name)) ??
      unique[i]!;
    await describeEntity(store, entity, `${relation.of}'s ${relation.relation}`);
    for (const { memory } of extracted) {
      if (memory.status === 'active' && memory.content.includes(relation.name))
        await linkEntities(store, space, { memoryId: memory.id }, [{ ...mentions[i]!, entityId: entity.id }]);
    }
  }
}

/** The LLM contract: a JSON array of actions (an object wrapping one is accepted too). */
const turnRef = z.number().int().positive().optional();

export const llmActionSchema = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('create'),
    content: z.string().trim().min(1).max(2000),
    importance: z.number().min(0).max(1).optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(16).optional(),
    /** Standing memory the model recognised: an instruction for every answer, a preference, a profile fact. */
    kind: z.enum(['fact', 'instruction', 'preference', 'profile']).optional(),
    /** Consolidation: the turn the fact comes from. */
    turnId: turnRef,
  }),
  z.object({
    action: z.literal('merge'),
    content: z.string().trim().min(1).max(2000),
    id: z.number().int().positive().optional(),
    turnId: turnRef,
  }),
  z.object({
    action: z.literal('archive'),
    content: z.string().trim().max(2000).optional(),
    id: z.number().int().positive().optional(),
    turnId: turnRef,
  }),
]);
export const llmActionsSchema = z.array(llmActionSchema).max(50);
export type LlmAction = z.infer<typeof llmActionSchema>;

/** What a create (or a merge naming no memory of this space) saves: standing memory protected, an instruction with its slot. */
function factOfAction(
  action: Exclude<LlmAction, { action: 'archive' }>,
  turn: TurnRow | null,
  turns: TurnRow[],
): FactToSave {
  const kind = action.action === 'create' && action.kind && action.kind !== 'fact' ? action.kind : undefined;
  return {
    content: action.content,
    // Standing memory is protected and important, whoever recognised it.
    ...(kind ? { kind, decayRate: 0 } : {}),
    // An instruction carries its topic and polarity, so that a later contradicting one supersedes it.
    ...(kind === 'instruction'
      ? {
          fact: {
            subject: turn ? subjectOf(turn) : 'User',
            slot: instructionSlot(action.content),
            value: action.content,
            polarity: instructionPolarity(action.content),
          },
        }
      : {}),
    importance: kind ? 1 : action.action === 'create' ? action.importance : undefined,
    tags: action.action === 'create' ? action.tags : undefined,
    sessionId: turn?.sessionId ?? turns[0]?.sessionId ?? null,
    eventAt: turn?.at,
    toldAt: turn?.at,
    rule: 'llm',
  };
}

/**
 * Applies the actions an LLM proposed for `turns` (one turn on addTurn, a page in consolidation).
 * Each action's source is the turn it names, or the only turn; an unknown turn id is ignored.
 */
export async function applyLlmActions(
  store: Store,
  space: Space,
  actions: LlmAction[],
  turns: TurnRow[],
): Promise<Extracted[]> {
  const sourceOf = (action: LlmAction) =>
    turns.find((t) => t.id === action.turnId) ?? (turns.length === 1 ? turns[0]! : null);
  const results: Extracted[] = [];
  const toSave = new Map<TurnRow | null, FactToSave[]>();
  const toArchive: { target: { id?: number; content?: string }; turn: TurnRow | null }[] = [];
  for (const action of actions) {
    const turn = sourceOf(action);
    if (action.action === 'archive') {
      toArchive.push({ target: { id: action.id, content: action.content }, turn });
      continue;
    }
    // An id the model names counts only within this space (a model may invent or echo any id).
    const target = action.action === 'merge' && action.id ? await getMemory(store, action.id) : undefined;
    if (
      target &&
      target.status === 'active' &&
      visibleIn(space, target) &&
      (target.agentId === null || target.agentId === space.agentId)
    ) {
      const source = turn ? { turnId: turn.id, reason: 'merged' as const, rule: 'llm' } : undefined;
      results.push({
        action: 'merged',
        memory: await reinforce(store, target, { content: action.content }, source),
        rule: 'llm',
      });
      continue;
    }
    const group = toSave.get(turn) ?? [];
    group.push(factOfAction(action, turn, turns));
    toSave.set(turn, group);
  }
  // New facts first, so an archive naming old content cannot hit the fact that replaces it.
  for (const [turn, facts] of toSave) {
    results.push(
      ...(await saveStanding(
        store,
        space,
        facts.filter((f) => f.kind),
        turn?.id ?? null,
      )),
    );
    results.push(
      ...(await saveFacts(
        store,
        space,
        facts.filter((f) => !f.kind),
        turn?.id ?? null,
      )),
    );
  }
  for (const { target, turn } of toArchive)
    results.push(...(await archiveFacts(store, space, [target], turn?.id ?? null)));
  return results;
}
