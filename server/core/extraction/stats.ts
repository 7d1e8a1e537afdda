// Extraction counters per path (heuristic, LLM, fallback), kept in the meta table so they survive restarts.
import { eq } from 'drizzle-orm';
import { meta } from '../../../drizzle/schema.ts';
import { perDialect } from '../kernel/dialect-statements.ts';
import { prepared, type Store } from '../kernel/store.ts';

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
const empty = (): PathStats => ({
  runs: 0,
  failures: 0,
  facts: 0,
  totalMs: 0,
  promptTokens: 0,
  completionTokens: 0,
  lastError: null,
});

export async function readExtractionStats(store: Store): Promise<Record<ExtractionPath, PathStats>> {
  const row = await prepared(store, 'stats.extraction.read', (db) =>
    db.select().from(meta).where(eq(meta.key, KEY)).prepare(),
  ).get();
  const stored = (row?.value ?? {}) as Partial<Record<ExtractionPath, Partial<PathStats>>>;
  return Object.fromEntries(EXTRACTION_PATHS.map((path) => [path, { ...empty(), ...stored[path] }])) as Record<
    ExtractionPath,
    PathStats
  >;
}

const COUNTERS = ['runs', 'failures', 'facts', 'totalMs', 'promptTokens', 'completionTokens'] as const;

/**
 * Per path: its counters (COUNTERS order, then lastError) are bound twice, for a new row and for
 * the update, in the backend's JSON functions (meta.value is text on both).
 */
const record = perDialect<ExtractionPath>((statements, path) => statements.extraction.recordStats(path, COUNTERS));

/**
 * Adds one sample in a single statement: the counters grow inside the database, so the hot path
 * pays no read-modify-write (and on a server no round trip of its own: nothing reads them back
 * before the commit). `path` comes from EXTRACTION_PATHS, never from input.
 */
export async function recordExtraction(
  store: Store,
  path: ExtractionPath,
  sample: { ok: boolean; ms: number; facts: number; promptTokens?: number; completionTokens?: number; error?: string },
) {
  const counters = [
    1,
    sample.ok ? 0 : 1,
    sample.facts,
    sample.ms,
    sample.promptTokens ?? 0,
    sample.completionTokens ?? 0,
  ];
  const lastError = sample.error ?? null;
  await store.sql.runAtCommit(record(store.dialect.statements, path), [
    KEY,
    ...counters,
    lastError,
    ...counters,
    lastError,
  ]);
}
