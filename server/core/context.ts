// Context for the next model call: the short-term window, top mid-term memories by score,
// long-term hints, facts from earlier sessions relevant to the query (or to the latest user
// turn), the latest reflection, and a markdown block ready to prepend to a system prompt.
import { z } from 'zod';
import { noteAccess } from './access.ts';
import { topMemories } from './memory-list.ts';
import type { MemoryRow } from './memories.ts';
import { latestReflection } from './reflection.ts';
import { search } from './search/search.ts';
import type { Space } from './space.ts';
import type { Store } from './store.ts';
import { shortTermWindow, type TurnRow } from './turns.ts';
import { parseInput } from './validation.ts';

export const contextSchema = z.object({
  sessionId: z.string().trim().min(1, 'must not be empty'),
  k: z.number().int().min(1).max(200).nullish(),
  /** What the next turn is about; by default the latest user turn of the session. */
  query: z.string().max(20_000).nullish(),
  /** Budget for `markdown` in tokens (about 4 characters each); lower-priority lines are dropped. */
  maxTokens: z.number().int().min(1).max(1_000_000).nullish(),
});
export type ContextInput = z.input<typeof contextSchema>;

export type Context = {
  sessionId: string;
  shortTerm: TurnRow[];
  midTerm: MemoryRow[];
  longTerm: MemoryRow[];
  /** Facts from earlier sessions (this one excluded) that match the query, best first. */
  relevant: MemoryRow[];
  /** The latest weekly reflection, if any. */
  reflection: MemoryRow | null;
  markdown: string;
};

const isHidden = (store: Store, memory: MemoryRow) => store.config.context.exclude_pii && memory.tags.includes('pii');

/** A rough token count (4 characters a token) — enough to keep a prompt under a budget. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * Sections in order of priority when a budget applies: relevant facts, then long-term, then the
 * reflection, then mid-term. Each section keeps its best lines first; the block reads in a fixed order.
 */
function renderMarkdown(context: Omit<Context, 'markdown'>, maxTokens: number | null) {
  const written = new Set<number>();
  const sections = [
    { order: 1, priority: 0, title: 'From earlier conversations', memories: context.relevant, bullets: true },
    { order: 0, priority: 1, title: 'Long-term memory', memories: context.longTerm, bullets: true },
    { order: 3, priority: 2, title: 'Weekly insight', memories: context.reflection ? [context.reflection] : [], bullets: false },
    { order: 2, priority: 3, title: 'Relevant memory', memories: context.midTerm, bullets: true },
  ].map((section) => {
    // A memory is written once, in the most important section that has it.
    const fresh = section.memories.filter((m) => !written.has(m.id));
    for (const m of fresh) written.add(m.id);
    const items = fresh.map((m) => (section.bullets ? `- ${m.content}` : m.content));
    return { ...section, items };
  });
  let budget = maxTokens ?? Infinity;
  const kept = new Map<number, string[]>();
  for (const section of sections) {
    const lines: string[] = [];
    for (const item of section.items) {
      // The heading costs its tokens with the section's first line.
      const cost = estimateTokens(item) + 1 + (lines.length === 0 ? estimateTokens(`## ${section.title}`) + 2 : 0);
      if (cost > budget) break;
      budget -= cost;
      lines.push(item);
    }
    if (lines.length > 0) kept.set(section.order, [`## ${section.title}`, ...lines, '']);
  }
  return [...kept].sort((a, b) => a[0] - b[0]).flatMap(([, lines]) => lines).join('\n').trim();
}

/** The latest user turn's text, the default query for relevant facts. */
function latestUserText(shortTerm: TurnRow[]): string | null {
  for (let i = shortTerm.length - 1; i >= 0; i--) if (shortTerm[i]!.role === 'user') return shortTerm[i]!.text;
  return null;
}

export function getContext(store: Store, space: Space, input: ContextInput, options: { queryVector?: Float32Array | null } = {}): Context {
  const { sessionId, k, query, maxTokens } = parseInput(contextSchema, input);
  const limit = k ?? store.config.context.k;
  const visible = (rows: MemoryRow[]) => rows.filter((m) => !isHidden(store, m)).slice(0, limit);
  // Over-fetch so that pii filtering still leaves k rows where it can.
  const midTerm = visible(topMemories(store, space, 'mid', limit * 2));
  const longTerm = visible(topMemories(store, space, 'long', limit * 2).filter((m) => m.kind === 'fact'));
  const reflection = latestReflection(store, space) ?? null;
  const shortTerm = shortTermWindow(store, space, sessionId);
  const text = query?.trim() ? query : latestUserText(shortTerm);
  const relevantK = store.config.context.relevant_k;
  const relevant = text && relevantK > 0
    ? search(store, space, { query: text, kinds: ['fact'], excludeSessionId: sessionId, limit: relevantK * 2 }, options)
        .hits.map((h) => h.memory!)
        .filter((m) => !isHidden(store, m))
        .slice(0, relevantK)
    : [];
  // Everything handed out counts as accessed (D6), written just after this read.
  noteAccess(store, new Set([...midTerm, ...longTerm, ...relevant].map((m) => m.id)));
  const context = { sessionId, shortTerm, midTerm, longTerm, relevant, reflection };
  return { ...context, markdown: renderMarkdown(context, maxTokens ?? null) };
}
