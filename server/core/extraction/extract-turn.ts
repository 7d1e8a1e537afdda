// Turning a stored turn into memories with the heuristic extractor, and applying the actions
// an LLM proposed for it. Both run inside a write transaction.
import { z } from 'zod';
import { getMemory, reinforce } from '../memories.ts';
import type { Store } from '../store.ts';
import type { TurnRow } from '../turns.ts';
import { extractFacts } from './heuristics.ts';
import { archiveFacts, saveFacts, type Extracted } from './save-facts.ts';

/** Facts are about the speaker: the turn's name, or "User" when it has none. */
export const subjectOf = (turn: Pick<TurnRow, 'name'>) => turn.name ?? 'User';

export function extractHeuristically(store: Store, turn: TurnRow): Extracted[] {
  const subject = subjectOf(turn);
  const facts = extractFacts(turn.text, subject, turn.at).map((f) => ({
    content: f.content,
    tags: f.tags,
    sessionId: turn.sessionId,
    eventAt: f.eventAt ?? turn.at,
    rule: `heuristic:${f.rule}`,
    exclusive: f.exclusive,
    fact: { subject: f.subject, slot: f.slot, value: f.value, polarity: f.polarity },
  }));
  return saveFacts(store, facts, turn.id);
}

/** The seed 003 LLM contract: a JSON array of actions (an object wrapping one is accepted too). */
export const llmActionSchema = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('create'),
    content: z.string().trim().min(1).max(2000),
    importance: z.number().min(0).max(1).optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(16).optional(),
  }),
  z.object({ action: z.literal('merge'), content: z.string().trim().min(1).max(2000), id: z.number().int().positive().optional() }),
  z.object({ action: z.literal('archive'), content: z.string().trim().max(2000).optional(), id: z.number().int().positive().optional() }),
]);
export const llmActionsSchema = z.array(llmActionSchema).max(50);
export type LlmAction = z.infer<typeof llmActionSchema>;

export function applyLlmActions(store: Store, actions: LlmAction[], turn: TurnRow | null): Extracted[] {
  const turnId = turn?.id ?? null;
  const results: Extracted[] = [];
  const toSave = [];
  for (const action of actions) {
    if (action.action === 'archive') continue;
    const target = action.action === 'merge' && action.id ? getMemory(store, action.id) : undefined;
    if (target && target.status === 'active') {
      const source = turnId === null ? undefined : { turnId, reason: 'merged' as const, rule: 'llm' };
      results.push({ action: 'merged', memory: reinforce(store, target, { content: action.content }, source), rule: 'llm' });
      continue;
    }
    toSave.push({
      content: action.content,
      importance: action.action === 'create' ? action.importance : undefined,
      tags: action.action === 'create' ? action.tags : undefined,
      sessionId: turn?.sessionId ?? null,
      eventAt: turn?.at,
      rule: 'llm',
    });
  }
  results.push(...saveFacts(store, toSave, turnId));
  const archives = actions.flatMap((a) => (a.action === 'archive' ? [{ id: a.id, content: a.content }] : []));
  results.push(...archiveFacts(store, archives, turnId));
  return results;
}
