// How bench:context scores a block: the evidence turns it covers, the share of a question's
// evidence that is in, the yardsticks packed the same way, and the tables of rows per budget,
// category and conversation.
import { countTokens } from '../server/core/text/token-count.ts';
import { percentile, round } from './stats.ts';

export type Row = {
  system: string;
  budget: number;
  dataset: string;
  category: string;
  conversation: string;
  question: string;
  recall: number;
  any: number;
  tokens: number;
  ms: number;
};

/**
 * The evidence turns a set of items covers: turns themselves, facts' source turns, and the turns a
 * timeline line quotes (its request and the answer's first words; with `requestsOnly`, the request alone).
 */
export function covered(
  items: { kind: string; id: number; sourceTurnIds: number[] }[],
  timeline: { turnIds: number[] }[] = [],
  requestsOnly = false,
): Set<number> {
  const out = new Set<number>();
  for (const item of items) {
    if (item.kind === 'turn') out.add(item.id);
    else for (const id of item.sourceTurnIds) out.add(id); // a memory (fact, standing memory): its source turns
  }
  for (const entry of timeline) for (const id of requestsOnly ? entry.turnIds.slice(0, 1) : entry.turnIds) out.add(id);
  return out;
}

export const score = (evidence: number[], got: Set<number>) => {
  const n = evidence.filter((id) => got.has(id)).length;
  return { recall: n / evidence.length, any: n > 0 ? 1 : 0 };
};

/** The yardstick: search's top turns, in rank order, each that still fits, under the block's turn heading. */
export function packedSearchTurns(hits: { id: number; line: string }[], budget: number) {
  const heading = '## Conversation excerpts';
  const lines: string[] = [];
  const ids: number[] = [];
  let used = countTokens(`${heading}\n`);
  for (const hit of hits) {
    const cost = countTokens(`${hit.line}\n`);
    if (used + cost > budget) continue;
    used += cost;
    lines.push(hit.line);
    ids.push(hit.id);
  }
  const markdown = lines.length ? [heading, ...lines].join('\n') : '';
  return { ids, tokens: countTokens(markdown) };
}

type Cell = { recall: number; any: number; tokens: number; n: number };

function cell(rows: Row[]): Cell {
  const mean = (f: (r: Row) => number) => round(rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length));
  return {
    recall: mean((r) => r.recall),
    any: mean((r) => r.any),
    tokens: Math.round(rows.reduce((s, r) => s + r.tokens, 0) / Math.max(1, rows.length)),
    n: rows.length,
  };
}

const latency = (rows: Row[]) => ({
  p50: round(
    percentile(
      rows.map((r) => r.ms),
      50,
    ),
    2,
  ),
  p95: round(
    percentile(
      rows.map((r) => r.ms),
      95,
    ),
    2,
  ),
});

/** Per system and budget: all questions, per category and per conversation (and the block's latency). */
export function summarise(rows: Row[], budgets: number[]) {
  const systems = [...new Set(rows.map((r) => r.system))];
  const categories = [...new Set(rows.map((r) => r.category))].sort();
  const conversations = [...new Set(rows.map((r) => r.conversation))];
  const byKey = (mine: Row[], keys: string[], key: (r: Row) => string) =>
    Object.fromEntries(keys.map((k) => [k, cell(mine.filter((r) => key(r) === k))]));
  const table = systems.map((system) => ({
    system,
    budgets: Object.fromEntries(
      budgets.map((budget) => {
        const mine = rows.filter((r) => r.system === system && r.budget === budget);
        return [
          String(budget),
          {
            all: cell(mine),
            byCategory: byKey(mine, categories, (r) => r.category),
            byConversation: byKey(mine, conversations, (r) => r.conversation),
            ...(system === 'context' ? { latencyMs: latency(mine) } : {}),
          },
        ];
      }),
    ),
  }));
  return { systems: table };
}
