// Counts of what is stored and queued, of one user or (the admin without a user) the whole file,
// and the extraction figures per path, which are the whole file's and so the admin's only.
import {
  EXTRACTION_PATHS,
  type ExtractionPath,
  type PathStats,
  readExtractionStats,
} from '../core/extraction/stats.ts';
import type { Access } from '../core/users/tokens.ts';
import type { Space } from '../core/kernel/space.ts';
import type { Store } from '../core/kernel/store.ts';
import { getStats, type Stats } from '../core/stats/stats.ts';

export type { Stats };
export type ExtractionStatsRow = PathStats & { path: ExtractionPath };

export const readStats = (store: Store, space: Space | null): Promise<Stats> => getStats(store, space);

/** One row per extraction path; none for a user's token. */
export async function extractionStats(store: Store, access: Access): Promise<ExtractionStatsRow[]> {
  if (!access.admin) return [];
  const stats = await readExtractionStats(store);
  return EXTRACTION_PATHS.map((path) => ({ path, ...stats[path] }));
}
