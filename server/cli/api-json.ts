// The API's JSON for the rows that direct-reads.ts returns without running GraphQL: the shapes of
// the typed client's fragments (client/operations/fragments.graphql), field for field and in the
// same order, written as the schema writes them (enums upper-case, times ISO-8601 with
// milliseconds). test/cli-remote.test.ts holds them to a server's output.
import type { MemoryFieldsFragment, TurnFieldsFragment } from '../../client/src/generated/sdk.ts';
import { isProtected } from '../core/memory/gc.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import type { TurnRow } from '../core/turns/turns.ts';

/** The DateTime scalar's output. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** An enum value as the API names it: the db's lower-case word, upper-cased. */
export const apiEnum = <T extends string>(value: T) => value.toUpperCase() as Uppercase<T>;

export const memoryJson = (m: MemoryRow): MemoryFieldsFragment => ({
  id: m.id,
  userId: m.userId,
  agentId: m.agentId,
  kind: apiEnum(m.kind),
  pinned: m.pinned,
  layer: apiEnum(m.layer),
  status: apiEnum(m.status),
  content: m.content,
  tags: m.tags,
  importance: m.importance,
  hits: m.hits,
  accessCount: m.accessCount,
  score: m.score,
  confidence: m.confidence,
  decayRate: m.decayRate,
  protected: isProtected(m),
  createdAt: iso(m.createdAt),
  eventAt: iso(m.eventAt),
  lastSeenAt: iso(m.lastSeenAt),
  lastAccessedAt: isoOrNull(m.lastAccessedAt),
  validUntil: isoOrNull(m.validUntil),
  fact: m.subject && m.slot ? { subject: m.subject, slot: m.slot, value: m.value, polarity: m.polarity } : null,
});

export const turnJson = (t: TurnRow): TurnFieldsFragment => ({
  id: t.id,
  userId: t.userId,
  agentId: t.agentId,
  sessionId: t.sessionId,
  role: apiEnum(t.role),
  name: t.name,
  text: t.text,
  at: iso(t.at),
  createdAt: iso(t.createdAt),
});
