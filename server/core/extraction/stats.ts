// Extraction counters per path (seed 003 metrics), kept in the meta table so they survive restarts.
import { eq } from 'drizzle-orm';
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

const COUNTERS = ['runs', 'failures', 'facts', 'totalMs', 'promptTokens', 'completionTokens'] as const;

/**
 * Adds one sample in a single statement: the counters grow inside SQLite, so the hot path pays
 * no read-modify-write. `path` comes from EXTRACTION_PATHS, never from input.
 */
export function recordExtraction(
  store: Store,
  path: ExtractionPath,
  sample: { ok: boolean; ms: number; facts: number; promptTokens?: number; completionTokens?: number; error?: string },
) {
  const fresh = COUNTERS.map((c) => `'${c}', @${c}`).join(', ');
  const grown = COUNTERS.map((c) => `'$.${path}.${c}', coalesce(json_extract(value, '$.${path}.${c}'), 0) + @${c}`).join(', ');
  prepared(store, `stats.extraction.${path}`, () =>
    store.sqlite.prepare(
      `insert into meta (key, value) values (@key, json_object('${path}', json_object(${fresh}, 'lastError', @lastError)))
       on conflict (key) do update set value = json_set(value, ${grown},
         '$.${path}.lastError', coalesce(@lastError, json_extract(value, '$.${path}.lastError')))`,
    ),
  ).run({
    key: KEY,
    runs: 1,
    failures: sample.ok ? 0 : 1,
    facts: sample.facts,
    totalMs: sample.ms,
    promptTokens: sample.promptTokens ?? 0,
    completionTokens: sample.completionTokens ?? 0,
    lastError: sample.error ?? null,
  });
}
