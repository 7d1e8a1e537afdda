// The REST shapes: snake_case fields, ISO-8601 timestamps (docs/api.md#rest).
import type { Context } from '../core/context/context.ts';
import type { Explanation } from '../core/memory/explain.ts';
import type { GcReport } from '../core/memory/gc.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import type { TurnRow } from '../core/turns/turns.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const turnJson = (t: TurnRow) => ({
  id: t.id,
  session_id: t.sessionId,
  role: t.role,
  name: t.name,
  text: t.text,
  ts: iso(t.at),
  created_at: iso(t.createdAt),
});

export const memoryJson = (m: MemoryRow) => ({
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
  last_accessed_at: iso(m.lastAccessedAt),
  valid_until: iso(m.validUntil),
});

export const contextJson = (c: Context) => ({
  session_id: c.sessionId,
  query: c.query,
  short_term: c.shortTerm.map(turnJson),
  mid_term: c.midTerm.map(memoryJson),
  long_term_hint: c.longTerm.map(memoryJson),
  relevant: c.relevant.map(memoryJson),
  reflection: c.reflection ? memoryJson(c.reflection) : null,
  items: c.items.map((i) => ({
    kind: i.kind,
    id: i.id,
    text: i.text,
    line: i.line,
    at: iso(i.at),
    event_at: i.eventAt === null ? null : iso(i.eventAt),
    superseded_at: i.supersededAt === null ? null : iso(i.supersededAt),
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

export const gcJson = (r: GcReport) => ({
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

export const whyJson = (e: Explanation) => ({
  memory_id: e.memoryId,
  status: e.status,
  memory: e.memory ? memoryJson(e.memory) : null,
  score: e.score,
  score_terms: e.scoreTerms,
  hits: e.hits,
  age_days: e.ageDays,
  days_since_seen: e.daysSinceSeen,
  days_since_access: e.daysSinceAccess,
  last_seen_at: iso(e.memory?.lastSeenAt ?? null),
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

/** `sessionId: must not be empty` -> `session_id: must not be empty`: messages name the REST field. */
export const snakeMessage = (message: string) =>
  message.replace(
    /^([A-Za-z0-9_.]+):/,
    (_, path: string) => `${path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}:`,
  );
