// CLI JSON output uses the field names of the GraphQL types (camelCase, ISO-8601 times).
import type { Context } from '../core/context.ts';
import type { Extracted } from '../core/extraction/save-facts.ts';
import type { Explanation } from '../core/explain.ts';
import type { DecisionRow } from '../core/decisions.ts';
import type { MemoryRow } from '../core/memories.ts';
import type { TurnRow } from '../core/turns.ts';

export const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

export const turnJson = (t: TurnRow) => ({
  id: t.id,
  sessionId: t.sessionId,
  role: t.role,
  name: t.name,
  text: t.text,
  at: iso(t.at),
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
  accessCount: m.accessCount,
  score: m.score,
  confidence: m.confidence,
  decayRate: m.decayRate,
  sessionId: m.sessionId,
  createdAt: iso(m.createdAt),
  eventAt: iso(m.eventAt),
  lastSeenAt: iso(m.lastSeenAt),
  lastAccessedAt: iso(m.lastAccessedAt),
  validUntil: iso(m.validUntil),
});

export const decisionJson = (d: DecisionRow) => ({ action: d.action, at: iso(d.at), detail: d.detail });

export const explanationJson = (e: Explanation) => ({
  memoryId: e.memoryId,
  status: e.status,
  memory: e.memory && memoryJson(e.memory),
  score: e.score,
  scoreTerms: e.scoreTerms,
  hits: e.hits,
  ageDays: e.ageDays,
  daysSinceSeen: e.daysSinceSeen,
  daysSinceAccess: e.daysSinceAccess,
  confidence: e.confidence,
  decayRate: e.decayRate,
  accessCount: e.accessCount,
  protected: e.protected,
  rules: e.rules,
  sources: e.sources,
  supersedes: e.supersedes,
  supersededBy: e.supersededBy,
  derivedFrom: e.derivedFrom,
  decisions: e.decisions.map(decisionJson),
});

export const contextJson = (c: Context) => ({
  sessionId: c.sessionId,
  shortTerm: c.shortTerm.map(turnJson),
  midTerm: c.midTerm.map(memoryJson),
  longTerm: c.longTerm.map(memoryJson),
  markdown: c.markdown,
});

export const extractedJson = (e: Extracted) => ({ action: e.action, rule: e.rule, memory: memoryJson(e.memory) });
