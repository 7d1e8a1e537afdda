// Search as every adapter asks it: the query embedded when an embedding endpoint is configured,
// and the memories found counted as accessed.
import { noteAccess } from '../core/memory/access.ts';
import type { SearchInput, SearchResult } from '../core/search/types.ts';
import type { Space } from '../core/kernel/space.ts';
import { searchWithRuntime } from './embed.ts';
import type { Runtime } from './runtime.ts';

/** Hybrid search over one space, best first. Bad input throws BAD_USER_INPUT before any network call. */
export async function searchMemory(runtime: Runtime, space: Space, input: SearchInput): Promise<SearchResult> {
  const result = await searchWithRuntime(runtime, space, input);
  noteAccess(
    runtime.store,
    result.hits.flatMap((h) => (h.memory ? [h.memory.id] : [])),
  );
  return result;
}
