// What the service reports about itself: counts per user or the whole file, extraction figures,
// and the job queue. Thin: the core's reads as they are.
import {
  EXTRACTION_PATHS,
  type ExtractionPath,
  type PathStats,
  readExtractionStats,
} from '../core/extraction/stats.ts';
import type { Store } from '../core/kernel/store.ts';
import type { Access } from '../core/users/tokens.ts';
export { JobType, listJobs } from '../core/jobs/jobs.ts';
export { EXTRACTION_PATHS, readExtractionStats };
export { getStats } from '../core/stats/stats.ts';

export type ExtractionStatsRow = PathStats & { path: ExtractionPath };

/** One row per extraction path: the whole file's figures, so none for a user's token. */
export async function extractionStats(store: Store, access: Access): Promise<ExtractionStatsRow[]> {
  if (!access.admin) return [];
  const stats = await readExtractionStats(store);
  return EXTRACTION_PATHS.map((path) => ({ path, ...stats[path] }));
}
