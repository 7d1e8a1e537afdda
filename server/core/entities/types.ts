// Named-entity recognition: what providers return, and how a surface form
// becomes an entity's display name and lookup key.
import { normalizeText } from '../text/text.ts';

export const EntityType = {
  Person: 'person',
  Location: 'location',
  Organization: 'organization',
  Project: 'project',
  Mention: 'mention',
  Hashtag: 'hashtag',
  Email: 'email',
  Url: 'url',
  Date: 'date',
  Other: 'other',
} as const;
export type EntityType = (typeof EntityType)[keyof typeof EntityType];
export const ENTITY_TYPES = Object.values(EntityType);

/** Types whose surface forms vary (first names, nicknames): only these get aliases. */
export const NAME_TYPES: ReadonlySet<string> = new Set([
  EntityType.Person,
  EntityType.Location,
  EntityType.Organization,
  EntityType.Project,
  EntityType.Other,
]);

/** One entity found in a text. `start`/`end` are UTF-16 offsets into that text. */
export type NerEntity = {
  /** The text as written, e.g. "Alice's" or "@bob". */
  text: string;
  /** Display name: prefix and possessive stripped, e.g. "Alice" or "bob". */
  name: string;
  type: EntityType;
  start: number;
  end: number;
  confidence: number;
  provider: string;
  /** Set when the provider already knows which registered entity this is (the known-entities matcher). */
  entityId?: number;
};

export type NerProvider = {
  name: string;
  /** Sync providers can run inside a write transaction (the hot path); async ones cannot. */
  extract(text: string): NerEntity[] | Promise<NerEntity[]>;
  /** Many texts in one call, when that costs less than one call each (compromise parses them together). */
  extractMany?(texts: readonly string[]): Promise<NerEntity[][]>;
};
export type SyncNerProvider = { name: string; extract(text: string): NerEntity[] };

/**
 * Thrown by a provider that could not run at all (compromise's thread died): the whole run fails,
 * so its job is retried, rather than the texts being stamped as done without that provider. A
 * failure on one text (an LLM timeout, bad JSON) is recorded and the others' results kept.
 */
export class NerUnavailable extends Error {
  override name = 'NerUnavailable';
}

const POSSESSIVE = /(?:['’]s|(?<=s)['’])$/i;
const EDGE_PUNCTUATION = /^[\s"'“”‘’()[\]{}<>,.;:!?*_~-]+|[\s"'“”‘’()[\]{}<>,.;:!?*_~-]+$/gu;

/** "Alice's!" -> "Alice", "@bob" -> "bob", "#Apollo" -> "Apollo"; emails and URLs only trimmed. */
export function displayName(surface: string, type: EntityType): string {
  let name = surface.normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (type === EntityType.Email || type === EntityType.Url) return name.replace(/[.,;:!?)\]]+$/, '');
  if (type === EntityType.Mention || type === EntityType.Hashtag) name = name.replace(/^[@#]+/, '');
  name = name.replace(EDGE_PUNCTUATION, '');
  name = name.replace(POSSESSIVE, '').replace(EDGE_PUNCTUATION, '');
  return name;
}

/**
 * The registry's lookup key (entities.name_key, with the type): case, punctuation and a
 * trailing possessive do not count, so "Alice's" and "alice" are one entity. Emails and URLs
 * keep their punctuation (lowercased) because it is what tells them apart.
 */
export function entityKey(name: string, type: string): string {
  if (type === EntityType.Email) return name.trim().toLowerCase();
  if (type === EntityType.Url) return name.trim().toLowerCase().replace(/\/+$/, '');
  return normalizeText(name.replace(POSSESSIVE, ''));
}

export const span = (e: Pick<NerEntity, 'start' | 'end'>) => e.end - e.start;
