// The entity signal: entities named in the query, matched by canonical name or alias,
// give the memories and turns linked to them. Reads the registry tables directly.
import type { Space } from '../kernel/space.ts';
import type { Store } from '../kernel/store.ts';
import { normalizeText } from '../text/text.ts';
import type { Scored } from './lexical.ts';

/** Links read per entity: a very common entity (the user) must not flood the list. */
const PER_ENTITY = 200;

/** Word n-grams (1..3) of the query: "new york city" names an entity that "new" does not. */
function grams(text: string): string[] {
  const words = normalizeText(text)
    .split(' ')
    .filter((w) => w.length > 1)
    .slice(0, 64);
  const out = new Set<string>();
  for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return [...out];
}

export type EntityMatch = { id: number; mentions: number };

const BY_NAME =
  'select id, mention_count as mentions from entities where user_id = ? and name_key in (select value from sm_texts(?))';
// Aliases are a JSON array; the check reads only entities that have any.
const BY_ALIAS = `
  select e.id as id, e.mention_count as mentions from entities e
  where e.user_id = ? and e.aliases <> '[]' and exists (
    select 1 from sm_texts(e.aliases) a, sm_texts(?) k where sm_normalize(a.value) = k.value
  ) limit 50`;

/** The user's entities the query names (the registry is per user). */
export async function entitiesInQuery(
  store: Store,
  space: Space,
  text: string,
  exclude: Set<string> = new Set(),
): Promise<EntityMatch[]> {
  const keys = grams(text).filter((k) => !exclude.has(k));
  if (keys.length === 0) return [];
  const byName = await store.sql.all<EntityMatch>(BY_NAME, [space.userId, JSON.stringify(keys)]);
  const byAlias = await store.sql.all<EntityMatch>(BY_ALIAS, [space.userId, JSON.stringify(keys)]);
  const seen = new Map<number, EntityMatch>();
  for (const match of [...byName, ...byAlias]) seen.set(match.id, match);
  return [...seen.values()];
}

const LINKED = {
  turns: 'select turn_id as id from turn_entities where entity_id = ? order by turn_id desc limit ?',
  memories: 'select memory_id as id from memory_entities where entity_id = ? order by memory_id desc limit ?',
} as const;

/**
 * Rows linked to the matched entities, scored by the rarity of what they share with the query
 * (an entity mentioned everywhere says little), newest first among equals.
 */
export async function entityLinked(
  store: Store,
  table: 'turns' | 'memories',
  matches: EntityMatch[],
  limit: number,
  tiebreak: Map<number, number> = new Map(),
): Promise<Scored[]> {
  if (matches.length === 0) return [];
  const text = LINKED[table];
  const scores = new Map<number, number>();
  for (const match of matches) {
    const weight = 1 / Math.log(2 + match.mentions);
    for (const { id } of await store.sql.all<{ id: number }>(text, [match.id, PER_ENTITY]))
      scores.set(id, (scores.get(id) ?? 0) + weight);
  }
  return (
    [...scores]
      .map(([id, score]) => ({ id, score }))
      // Among rows sharing the same entities, the better text match first, then the newest.
      .sort((a, b) => b.score - a.score || (tiebreak.get(b.id) ?? 0) - (tiebreak.get(a.id) ?? 0) || b.id - a.id)
      .slice(0, limit)
  );
}
