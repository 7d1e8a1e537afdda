// Extraction counters per path (seed 003 metrics), kept in the meta table so they survive restarts.
import { eq, sql } from 'drizzle-orm';
import { meta } from '../../../drizzle/schema.ts';
import { prepared, type Store } from '../store.ts';

export const EXTRACTION_PATHS = ['heuristic', 'llm', 'hybrid', 'fallback'] as const;
export type ExtractionPath = (typeof EXTRACTION_PATHS)[number];

export type PathStats = {
  runs: number;
  failures: number;
  facts: number;
  totalMs: number;
  promptTokens: number;
  completionTokens: number;
  lastError: string | null;
};

const KEY = 'stats.extraction';
const empty = (): PathStats => ({ runs: 0, failures: 0, facts: 0, totalMs: 0, promptTokens: 0, completionTokens: 0, lastError: null });

export function readExtractionStats(store: Store): Record<ExtractionPath, PathStats> {
  const row = prepared(store, 'stats.extraction.read', (db) => db.select().from(meta).where(eq(meta.key, KEY)).prepare()).get();
  const stored = (row?.value ?? {}) as Partial<Record<ExtractionPath, Partial<PathStats>>>;
  return Object.fromEntries(EXTRACTION_PATHS.map((path) => [path, { ...empty(), ...stored[path] }])) as Record<ExtractionPath, PathStats>;
}

export function recordExtraction(
  store: Store,
  path: ExtractionPath,
  sample: { ok: boolean; ms: number; facts: number; promptTokens?: number; completionTokens?: number; error?: string },
) {
  const stats = readExtractionStats(store);
  const current = stats[path];
  stats[path] = {
    runs: current.runs + 1,
    failures: current.failures + (sample.ok ? 0 : 1),
    facts: current.facts + sample.facts,
    totalMs: current.totalMs + sample.ms,
    promptTokens: current.promptTokens + (sample.promptTokens ?? 0),
    completionTokens: current.completionTokens + (sample.completionTokens ?? 0),
    lastError: sample.error ?? current.lastError,
  };
  prepared(store, 'stats.extraction.write', (db) =>
    db
      .insert(meta)
      .values({ key: KEY, value: sql.placeholder('value') })
      .onConflictDoUpdate({ target: meta.key, set: { value: sql.placeholder('value') } })
      .prepare(),
  ).run({ value: stats });
}
