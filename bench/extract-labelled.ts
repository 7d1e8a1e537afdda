// The labelled utterances of bench:extract (test/fixtures/fact-utterances.json): each one, alone,
// through addTurn in a space of its own; "kept" when extraction saved at least one memory from it.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { ingestTurn } from '../server/services/ingest.ts';
import { createRuntime } from '../server/services/runtime.ts';

export const labelledUtterance = z.object({
  style: z.enum(['locomo', 'beam']),
  role: z.enum(['user', 'assistant']).default('user'),
  speaker: z.string().optional(),
  text: z.string().min(1),
  fact: z.boolean(),
  reason: z.string().min(3),
});
export type LabelledUtterance = z.infer<typeof labelledUtterance>;

export const readLabelled = (path: string): LabelledUtterance[] =>
  z.array(labelledUtterance).parse(JSON.parse(readFileSync(path, 'utf8')));

type Counts = { n: number; facts: number; kept: number; precision: number; recall: number };
export type LabelledFigures = Counts & {
  byStyle: Record<string, Counts>;
  wrong: (LabelledUtterance & { kept: boolean })[];
};

const AT = Date.UTC(2024, 2, 15, 9);

function counts(rows: { fact: boolean; kept: boolean }[]): Counts {
  const kept = rows.filter((r) => r.kept);
  const facts = rows.filter((r) => r.fact);
  return {
    n: rows.length,
    facts: facts.length,
    kept: kept.length,
    precision: kept.length ? kept.filter((r) => r.fact).length / kept.length : 0,
    recall: facts.length ? facts.filter((r) => r.kept).length / facts.length : 0,
  };
}

export async function labelledFigures(path: string): Promise<LabelledFigures> {
  const items = readLabelled(path);
  const store = await openStore({ path: ':memory:', env: {}, config: { extractor: { mode: 'heuristic' } } });
  const runtime = await createRuntime(store, {});
  const rows: (LabelledUtterance & { kept: boolean })[] = [];
  try {
    for (const [i, item] of items.entries()) {
      store.clock = { now: () => AT + i };
      const space = { userId: `labelled-${i}`, agentId: null };
      const { extracted } = await ingestTurn(runtime, space, {
        sessionId: 's',
        role: item.role,
        name: item.speaker,
        text: item.text,
        at: AT,
      });
      rows.push({ ...item, kept: extracted.length > 0 });
    }
  } finally {
    await closeStore(store);
  }
  const byStyle = Object.fromEntries(
    ['locomo', 'beam'].map((style) => [style, counts(rows.filter((r) => r.style === style))]),
  );
  return { ...counts(rows), byStyle, wrong: rows.filter((r) => r.fact !== r.kept) };
}
