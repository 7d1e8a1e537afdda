// The speakers seen in each user's turns (turns.name), so a query can be recognised as being
// about one. Kept per store and topped up incrementally from the turns added since the last look
// (a range of ids: cheap), so a search costs one max(id) lookup rather than a scan of every turn.
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { normalizeText } from '../text/text.ts';

type SpeakerCache = { maxId: number; byUser: Map<string, Map<string, string>> };
const caches = new WeakMap<Store, SpeakerCache>();
const NONE = new Map<string, string>();

const MAX_TURN_ID = 'select max(id) as id from turns';
const NAMES_SINCE = 'select distinct user_id as userId, name from turns where id > ? and name is not null';

export async function speakerLookup(store: Store, space: Space): Promise<(token: string) => string | undefined> {
  let cache = caches.get(store);
  if (!cache) {
    cache = { maxId: 0, byUser: new Map() };
    caches.set(store, cache);
  }
  const maxId = (await store.sql.get<{ id: number | null }>(MAX_TURN_ID))!.id ?? 0;
  if (maxId < cache.maxId) cache = { maxId: 0, byUser: new Map() }; // turns were deleted wholesale
  if (maxId > cache.maxId) {
    const rows = await store.sql.all<{ userId: string; name: string }>(NAMES_SINCE, [cache.maxId]);
    for (const { userId, name } of rows) {
      const key = normalizeText(name);
      if (!key) continue;
      let byToken = cache.byUser.get(userId);
      if (!byToken) cache.byUser.set(userId, (byToken = new Map()));
      byToken.set(key, name);
      // "Caroline Smith" is also asked about as "Caroline".
      const first = key.split(' ')[0]!;
      if (first.length > 2 && !byToken.has(first)) byToken.set(first, name);
    }
    cache.maxId = maxId;
    caches.set(store, cache);
  }
  const map = cache.byUser.get(space.userId) ?? NONE;
  return (token) => map.get(token);
}
