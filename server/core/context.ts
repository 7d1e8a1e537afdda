// Context for the next model call: the short-term window, top mid-term memories by score,
// long-term hints and a markdown block ready to prepend to a system prompt.
import { z } from 'zod';
import { recordAccess, topMemories } from './memory-list.ts';
import type { MemoryRow } from './memories.ts';
import { latestReflection } from './reflection.ts';
import type { Store } from './store.ts';
import { shortTermWindow, type TurnRow } from './turns.ts';
import { parseInput } from './validation.ts';

export const contextSchema = z.object({
  sessionId: z.string().trim().min(1, 'must not be empty'),
  k: z.number().int().min(1).max(200).nullish(),
});
export type ContextInput = z.input<typeof contextSchema>;

export type Context = {
  sessionId: string;
  shortTerm: TurnRow[];
  midTerm: MemoryRow[];
  longTerm: MemoryRow[];
  /** The latest weekly reflection, if any. */
  reflection: MemoryRow | null;
  markdown: string;
};

const isHidden = (store: Store, memory: MemoryRow) => store.config.context.exclude_pii && memory.tags.includes('pii');

function renderMarkdown(context: Omit<Context, 'markdown'>) {
  const lines: string[] = [];
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`## ${title}`, ...items, '');
  };
  section('Long-term memory', context.longTerm.map((m) => `- ${m.content}`));
  section('Relevant memory', context.midTerm.map((m) => `- ${m.content}`));
  if (context.reflection) section('Weekly insight', [context.reflection.content]);
  return lines.join('\n').trim();
}

export function getContext(store: Store, input: ContextInput): Context {
  const { sessionId, k } = parseInput(contextSchema, input);
  const limit = k ?? store.config.context.k;
  const visible = (rows: MemoryRow[]) => rows.filter((m) => !isHidden(store, m)).slice(0, limit);
  // Over-fetch so that pii filtering still leaves k rows where it can.
  const midTerm = visible(topMemories(store, 'mid', limit * 2));
  const longTerm = visible(topMemories(store, 'long', limit * 2).filter((m) => m.kind === 'fact'));
  const reflection = latestReflection(store) ?? null;
  const shortTerm = shortTermWindow(store, sessionId);
  recordAccess(store, [...midTerm, ...longTerm].map((m) => m.id));
  const context = { sessionId, shortTerm, midTerm, longTerm, reflection };
  return { ...context, markdown: renderMarkdown(context) };
}
