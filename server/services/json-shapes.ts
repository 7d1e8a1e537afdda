// The JSON of each domain type outside GraphQL, in one place for every adapter. The API shape is
// the typed client's fragments (client/operations/fragments.graphql) field for field: camelCase,
// enum values upper-case, times ISO-8601 with milliseconds; the embedded CLI prints it, and
// test/cli/cli-remote.test.ts holds it to a server's answers. REST writes the same rows in its own
// documented wire shape (snake_case, enum values lower-case: docs/api.md#rest).
import type { Context, ContextItem } from '../core/context/context.ts';
import type { Explanation } from '../core/memory/explain.ts';
import { isProtected, type GcReport } from '../core/memory/gc.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import { SIGNALS } from '../core/search/index.ts';
import type { SearchHit } from '../core/search/types.ts';
import type { Stats } from '../core/stats/stats.ts';
import type { TurnRow } from '../core/turns/turns.ts';
import type { ExtractionStatsRow } from './stats.ts';

/** The DateTime scalar's output. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** An enum value as the API names it: the db's lower-case word, upper-cased. */
export const apiEnum = <T extends string>(value: T) => value.toUpperCase() as Uppercase<T>;

export const memoryJson = (m: MemoryRow) => ({
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

export const turnJson = (t: TurnRow) => ({
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

/** A search hit (the search operation's selection), its signals best rank first. */
export const searchHitJson = (h: SearchHit) => ({
  kind: apiEnum(h.kind),
  id: h.id,
  text: h.text,
  passage: h.passage ?? null,
  sessionId: h.sessionId,
  at: iso(h.at),
  score: h.score,
  signals: SIGNALS.flatMap((signal) =>
    h.ranks[signal] === null ? [] : [{ signal: apiEnum(signal), rank: h.ranks[signal]! }],
  ).sort((a, b) => a.rank - b.rank),
  sourceTurnIds: h.sourceTurnIds,
  memory: h.memory && memoryJson(h.memory),
  turn: h.turn && turnJson(h.turn),
});

/** A context item (the ContextItemFields fragment). */
export const contextItemJson = (i: ContextItem) => ({
  kind: apiEnum(i.kind),
  id: i.id,
  text: i.text,
  line: i.line,
  at: iso(i.at),
  eventAt: isoOrNull(i.eventAt),
  supersededAt: isoOrNull(i.supersededAt),
  tokens: i.tokens,
  value: i.value,
  reason: apiEnum(i.reason),
  sessionId: i.sessionId,
  sourceTurnIds: i.sourceTurnIds,
});

/** The context operation's selection. */
export const contextJson = (c: Context) => ({
  sessionId: c.sessionId,
  query: c.query,
  tokenBudget: c.tokenBudget,
  tokensUsed: c.tokensUsed,
  tokenizer: c.tokenizer,
  shortTerm: c.shortTerm.map(turnJson),
  items: c.items.map(contextItemJson),
  standing: {
    tokens: c.standing.tokens,
    instructions: {
      title: c.standing.instructions.title,
      leftOut: c.standing.instructions.leftOut,
      items: c.standing.instructions.items.map(contextItemJson),
    },
    about: {
      title: c.standing.about.title,
      leftOut: c.standing.about.leftOut,
      items: c.standing.about.items.map(contextItemJson),
    },
  },
  relevant: c.relevant.map(memoryJson),
  reflection: c.reflection && memoryJson(c.reflection),
  markdown: c.markdown,
});

/** The stats operation's selection; `extraction` is empty for anyone but the admin. */
export const statsJson = (s: Stats, extraction: ExtractionStatsRow[]) => ({
  memories: {
    total: s.memories.total,
    active: s.memories.byStatus.active,
    archived: s.memories.byStatus.archived,
    mid: s.memories.byLayer.mid,
    long: s.memories.byLayer.long,
    facts: s.memories.byKind.fact,
    reflections: s.memories.byKind.reflection,
  },
  turns: s.turns,
  sessions: s.sessions,
  entities: s.entities,
  jobs: {
    pending: s.jobs.pending,
    running: s.jobs.running,
    done: s.jobs.done,
    dead: s.jobs.dead,
    backlog: s.jobs.backlog,
    lagSeconds: s.jobs.lagSeconds,
    byType: s.jobs.byType.map((t) => ({ type: t.type, backlog: t.backlog, lagSeconds: t.lagSeconds })),
    nerDeferred: s.jobs.nerDeferred,
    nerCheapMode: s.jobs.nerCheapMode,
  },
  features: { fts: s.features.fts, vec: s.features.vec, semantic: s.features.semantic },
  extraction: extraction.map((e) => ({
    path: e.path,
    runs: e.runs,
    failures: e.failures,
    facts: e.facts,
    averageMs: e.runs ? e.totalMs / e.runs : 0,
    promptTokens: e.promptTokens,
    completionTokens: e.completionTokens,
    lastError: e.lastError,
  })),
});

// REST's wire shapes (docs/api.md#rest).

export const restTurnJson = (t: TurnRow) => ({
  id: t.id,
  session_id: t.sessionId,
  role: t.role,
  name: t.name,
  text: t.text,
  ts: iso(t.at),
  created_at: iso(t.createdAt),
});

export const restMemoryJson = (m: MemoryRow) => ({
  id: m.id,
  kind: m.kind,
  layer: m.layer,
  status: m.status,
  content: m.content,
  tags: m.tags,
  importance: m.importance,
  hits: m.hits,
  access_count: m.accessCount,
  score: m.score,
  confidence: m.confidence,
  decay_rate: m.decayRate,
  session_id: m.sessionId,
  created_at: iso(m.createdAt),
  event_at: iso(m.eventAt),
  last_seen_at: iso(m.lastSeenAt),
  last_accessed_at: isoOrNull(m.lastAccessedAt),
  valid_until: isoOrNull(m.validUntil),
});

export const restContextJson = (c: Context) => ({
  session_id: c.sessionId,
  query: c.query,
  short_term: c.shortTerm.map(restTurnJson),
  mid_term: c.midTerm.map(restMemoryJson),
  long_term_hint: c.longTerm.map(restMemoryJson),
  relevant: c.relevant.map(restMemoryJson),
  reflection: c.reflection ? restMemoryJson(c.reflection) : null,
  items: c.items.map((i) => ({
    kind: i.kind,
    id: i.id,
    text: i.text,
    line: i.line,
    at: iso(i.at),
    event_at: isoOrNull(i.eventAt),
    superseded_at: isoOrNull(i.supersededAt),
    tokens: i.tokens,
    reason: i.reason,
    session_id: i.sessionId,
    source_turn_ids: i.sourceTurnIds,
  })),
  token_budget: c.tokenBudget,
  tokens_used: c.tokensUsed,
  tokenizer: c.tokenizer,
  markdown: c.markdown,
});

export const restGcJson = (r: GcReport) => ({
  at: iso(r.at),
  mode: r.mode,
  scored: r.scored,
  promoted: r.promoted,
  archived: r.archived,
  deleted: r.deleted,
  purged: r.purged,
  by_reason: r.byReason,
  average_score: r.averageScore,
  average_age_days: r.averageAgeDays,
});

export const restWhyJson = (e: Explanation) => ({
  memory_id: e.memoryId,
  status: e.status,
  memory: e.memory ? restMemoryJson(e.memory) : null,
  score: e.score,
  score_terms: e.scoreTerms,
  hits: e.hits,
  age_days: e.ageDays,
  days_since_seen: e.daysSinceSeen,
  days_since_access: e.daysSinceAccess,
  last_seen_at: isoOrNull(e.memory?.lastSeenAt ?? null),
  confidence: e.confidence,
  decay_rate: e.decayRate,
  access_count: e.accessCount,
  protected: e.protected,
  rules: e.rules,
  sources: e.sources.map((s) => ({ turn_id: s.turnId, reason: s.reason, rule: s.rule })),
  supersedes: e.supersedes,
  superseded_by: e.supersededBy,
  derived_from: e.derivedFrom,
  decisions: e.decisions.map((d) => ({ action: d.action, detail: d.detail, at: iso(d.at) })),
});
