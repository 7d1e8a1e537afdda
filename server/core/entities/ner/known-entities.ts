// The `known` provider: finds names already in the registry (canonical names, aliases and the
// first name of a known full name) with an in-memory index, in microseconds. Once the accurate
// pass has discovered "Alice Johnson", a later "Alice called me" links on the hot path.
//
// The index holds committed entities only: it learns about changes from the store's change
// events (published after commit, so a rolled-back entity never gets in), and reloads fully
// when another connection (a CLI next to the server) has written to the database.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { entities } from '../../../../drizzle/schema.ts';
import type { Space } from '../../kernel/space.ts';
import { currentWrite, onChange, prepared, type Store } from '../../kernel/store.ts';
import { entityKey, NAME_TYPES, type NerEntity, type SyncNerProvider } from '../types.ts';

type Known = { entityId: number; type: string; name: string; mentions: number };
type Entry = Known & { tokens: string[] };
export type NameSource = { id: number; name: string; type: string; aliases: string[]; mentionCount: number };

const CONFIDENCE = { exact: 0.85, firstName: 0.75, prefixOfLongerName: 0.5 } as const;
/** Past this many changed entities, one full reload is cheaper than patching. */
const PATCH_LIMIT = 200;

const keyTokens = (key: string) => (key ? key.split(' ') : []);

/** A name index: strong keys (names, aliases) by first token, and first names of full person names. */
export class NameIndex {
  private byFirst = new Map<string, Entry[]>();
  private firstNames = new Map<string, Known[]>();
  private byEntity = new Map<number, { strong: string[]; first: string | null }>();

  get size() {
    return this.byEntity.size;
  }

  add(row: NameSource) {
    if (!NAME_TYPES.has(row.type)) return;
    this.remove(row.id);
    const known: Known = { entityId: row.id, type: row.type, name: row.name, mentions: row.mentionCount };
    const strong: string[] = [];
    for (const key of new Set([row.name, ...row.aliases].map((n) => entityKey(n, row.type)).filter(Boolean))) {
      const tokens = keyTokens(key);
      const list = this.byFirst.get(tokens[0]!) ?? [];
      list.push({ ...known, tokens });
      // Longest name first (so "Alice Johnson" beats "Alice"), then the most mentioned.
      list.sort((a, b) => b.tokens.length - a.tokens.length || b.mentions - a.mentions);
      this.byFirst.set(tokens[0]!, list);
      strong.push(tokens[0]!);
    }
    const nameTokens = keyTokens(entityKey(row.name, row.type));
    const first = row.type === 'person' && nameTokens.length > 1 ? nameTokens[0]! : null;
    if (first) this.firstNames.set(first, [...(this.firstNames.get(first) ?? []), known]);
    this.byEntity.set(row.id, { strong, first });
  }

  remove(entityId: number) {
    const keys = this.byEntity.get(entityId);
    if (!keys) return;
    for (const token of keys.strong) {
      const list = this.byFirst.get(token)?.filter((e) => e.entityId !== entityId) ?? [];
      if (list.length) this.byFirst.set(token, list);
      else this.byFirst.delete(token);
    }
    if (keys.first) {
      const list = this.firstNames.get(keys.first)?.filter((e) => e.entityId !== entityId) ?? [];
      if (list.length) this.firstNames.set(keys.first, list);
      else this.firstNames.delete(keys.first);
    }
    this.byEntity.delete(entityId);
  }

  clear() {
    this.byFirst.clear();
    this.firstNames.clear();
    this.byEntity.clear();
  }

  /**
   * Known names in `text`, longest first at each position. A one-word name must be capitalised
   * in the text ("Will" the person, not "will" the verb); longer names match in any case.
   * A first name counts only when exactly one known person has it.
   */
  match(text: string): NerEntity[] {
    if (this.byEntity.size === 0) return [];
    const words = wordsOf(text);
    const found: NerEntity[] = [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      const candidates = this.byFirst.get(word.key);
      let matched: { entry: Known; last: number; confidence: number } | null = null;
      for (const entry of candidates ?? []) {
        const last = i + entry.tokens.length - 1;
        if (last >= words.length) continue;
        if (entry.tokens.length === 1 && !word.capital) continue;
        let ok = true;
        for (let k = 1; k < entry.tokens.length && ok; k++)
          ok = words[i + k]!.key === entry.tokens[k] && joined(text, words[i + k - 1]!, words[i + k]!);
        if (ok) {
          matched = { entry, last, confidence: CONFIDENCE.exact };
          break;
        }
      }
      if (!matched && word.capital) {
        const people = this.firstNames.get(word.key);
        if (people?.length === 1) matched = { entry: people[0]!, last: i, confidence: CONFIDENCE.firstName };
      }
      if (!matched) continue;
      const next = words[matched.last + 1];
      // "Alice Smith" when only "Alice" is known: probably someone else, or a full name to learn.
      // Stay weak so a provider that reads the whole name wins the overlap.
      const confidence =
        next?.capital && next.key !== 'i' && joined(text, words[matched.last]!, next)
          ? CONFIDENCE.prefixOfLongerName
          : matched.confidence;
      const start = word.start;
      const end = words[matched.last]!.end;
      found.push({
        text: text.slice(start, end),
        name: text.slice(start, end),
        type: matched.entry.type as NerEntity['type'],
        start,
        end,
        confidence,
        provider: 'known',
        entityId: matched.entry.entityId,
      });
      i = matched.last;
    }
    return found;
  }
}

type Word = { key: string; start: number; end: number; capital: boolean };
const WORD = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    const first = m[0][0]!;
    words.push({
      key: m[0].toLowerCase(),
      start: m.index,
      end: m.index + m[0].length,
      capital: first !== first.toLowerCase(),
    });
  }
  return words;
}

/** Two words belong to one name when only a space, hyphen, apostrophe or period separates them. */
const joined = (text: string, a: Word, b: Word) =>
  b.start - a.end <= 2 && /^[\s.'’-]+$/.test(text.slice(a.end, b.start));

/** Per user: a user's names never link another user's turns (docs/architecture.md#spaces). */
type UserIndex = { index: NameIndex; dirty: Set<number> };
/** `forgotten` counts users erased: an index read while one was must not be kept. */
type StoreIndex = { users: Map<string, UserIndex>; version: number; checkedIn: object | undefined; forgotten: number };
const indexes = new WeakMap<Store, StoreIndex>();
/** Indexes kept at once; the least recently used user's is rebuilt on its next turn. */
const MAX_USERS = 256;

const NAME_COLUMNS = {
  id: entities.id,
  name: entities.name,
  type: entities.type,
  aliases: entities.aliases,
  mentionCount: entities.mentionCount,
};

async function loadAll(store: Store, userId: string): Promise<UserIndex> {
  const index = new NameIndex();
  // Built once per store: with 1,000 users talking, most turns rebuild some user's index.
  const rows = await prepared(store, 'known-entities.loadAll', (db) =>
    db
      .select(NAME_COLUMNS)
      .from(entities)
      .where(and(eq(entities.userId, sql.placeholder('userId')), inArray(entities.type, [...NAME_TYPES])))
      .prepare(),
  ).all({ userId });
  for (const row of rows) index.add(row);
  return { index, dirty: new Set() };
}

async function patch(store: Store, userId: string, state: UserIndex) {
  // Changes heard while the rows are read go to a new set, for the next patch.
  const ids = [...state.dirty];
  state.dirty = new Set();
  const rows = await store.db
    .select(NAME_COLUMNS)
    .from(entities)
    .where(and(eq(entities.userId, userId), inArray(entities.id, ids)))
    .all();
  for (const id of ids) state.index.remove(id);
  for (const row of rows) state.index.add(row);
}

/** One user's index of committed names, brought up to date (cheaply: usually nothing to do). */
export async function knownNames(store: Store, space: Space): Promise<NameIndex> {
  let state = indexes.get(store);
  if (!state) {
    state = { users: new Map(), version: 0, checkedIn: undefined, forgotten: 0 };
    const s = state;
    onChange(store, (event) => {
      if (event.type === 'entity' && event.action !== 'linked') s.users.get(event.userId)?.dirty.add(event.entityId);
      if (event.type === 'user') {
        s.users.delete(event.userId);
        s.forgotten++;
      }
    });
    indexes.set(store, state);
  }
  // Inside one write transaction nothing can change it: no other connection commits while this
  // one holds the write lock, and our own changes arrive as events after the commit. So it is
  // checked once per transaction (currentWrite is the same object for all of it).
  const transaction = currentWrite(store);
  if (!(transaction && state.checkedIn === transaction)) {
    state.checkedIn = transaction;
    // data_version moves only when another connection commits: our own writes arrive as events.
    const version = await store.sql.dataVersion();
    if (version !== state.version) {
      state.version = version;
      state.users.clear();
    }
  }
  const forgotten = state.forgotten;
  let user = state.users.get(space.userId);
  if (!user || user.dirty.size > PATCH_LIMIT) user = await loadAll(store, space.userId);
  else if (user.dirty.size > 0) await patch(store, space.userId, user);
  if (state.forgotten !== forgotten) return user.index;
  // Most recently used last (Map order), the oldest evicted past the cap.
  state.users.delete(space.userId);
  state.users.set(space.userId, user);
  if (state.users.size > MAX_USERS) state.users.delete(state.users.keys().next().value!);
  return user.index;
}

/** The provider over the user's names as they are now: built once per turn (or batch), it then matches without I/O. */
export async function knownEntitiesProvider(store: Store, space: Space): Promise<SyncNerProvider> {
  const index = await knownNames(store, space);
  return { name: 'known', extract: (text) => index.match(text) };
}
