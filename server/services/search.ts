// Search as every adapter asks it: input parsed once, the query embedded when an embedding
// endpoint is configured (a failure degrades to lexical + entity search), the read answered in a
// read worker when the pool takes it, and the memories found counted as accessed.
import type { SearchOptions } from '../core/search/search.ts';
import { searchFiltered } from '../core/search/search.ts';
import { searchSchema, type SearchInput, type SearchResult } from '../core/search/types.ts';
import type { Space } from '../core/kernel/space.ts';
import { parseInput } from '../core/kernel/validation.ts';
import { embedQuery } from './embed.ts';
import { answerRead } from './read-access.ts';
import type { Runtime } from './runtime.ts';

export { SEARCH_KINDS, SIGNALS } from '../core/search/index.ts';

/**
 * Hybrid search over one space, best first. Bad input throws BAD_USER_INPUT before any network
 * call. `options` tune the search in place (fitting, ablations): such a search stays in this process.
 */
export async function searchMemory(
  runtime: Runtime,
  space: Space,
  input: SearchInput,
  options: Omit<SearchOptions, 'queryVector'> = {},
): Promise<SearchResult> {
  const filter = parseInput(searchSchema, input);
  const queryVector = await embedQuery(runtime, filter.query);
  return answerRead(runtime, {
    call: Object.keys(options).length === 0 ? { kind: 'search', space, input: filter, queryVector } : null,
    inProcess: () => searchFiltered(runtime.store, space, filter, { ...options, queryVector }),
    accessed: (result) => result.hits.flatMap((h) => (h.memory ? [h.memory.id] : [])),
  });
}
