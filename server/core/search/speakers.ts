// The speakers seen in turns (turns.name), so a query can be recognised as being about one.
// Kept per store and topped up incrementally from the turns added since the last look, so a
// search costs one max(id) lookup rather than a scan of every turn.
import { prepared, type Store } from '../store.ts';
import { normalizeText } from '../text.ts';

type SpeakerCache = { maxId: number; byToken: Map<string, string> };
const caches = new WeakMap<Store, SpeakerCache>();

export function speakerLookup(store: Store): (token: string) => string | undefined {
  let cache = caches.get(store);
  if (!cache) {
    cache = { maxId: 0, byToken: new Map() };
    caches.set(store, cache);
  }
  const maxId = (prepared(store, 'search.maxTurnId', () => store.sqlite.prepare('select max(id) as id from turns')).get() as { id: number | null }).id ?? 0;
  if (maxId < cache.maxId) cache = { maxId: 0, byToken: new Map() }; // turns were deleted wholesale
  if (maxId > cache.maxId) {
    const rows = store.sqlite
      .prepare('select distinct name from turns where id > ? and name is not null')
      .all(cache.maxId) as { name: string }[];
    for (const { name } of rows) {
      const key = normalizeText(name);
      if (!key) continue;
      cache.byToken.set(key, name);
      // "Caroline Smith" is also asked about as "Caroline".
      const first = key.split(' ')[0]!;
      if (first.length > 2 && !cache.byToken.has(first)) cache.byToken.set(first, name);
    }
    cache.maxId = maxId;
    caches.set(store, cache);
  }
  const map = cache.byToken;
  return (token) => map.get(token);
}
