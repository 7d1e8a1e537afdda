// Salience (docs/architecture.md#score-and-confidence): score = w_freq·ln(1+hits) + w_recency·exp(−λ·age_days) + w_importance·importance.
import { daysBetween } from '../kernel/clock.ts';
import type { Config } from '../kernel/config.ts';

export type ScoreTerms = { frequency: number; recency: number; importance: number };

export type Scorable = { hits: number; importance: number; createdAt: number };

export function scoreTerms(memory: Scorable, now: number, scoring: Config['scoring']): ScoreTerms {
  const ageDays = daysBetween(memory.createdAt, now);
  return {
    frequency: scoring.w_freq * Math.log1p(memory.hits),
    recency: scoring.w_recency * Math.exp(-scoring.lambda * ageDays),
    importance: scoring.w_importance * memory.importance,
  };
}

export function score(memory: Scorable, now: number, scoring: Config['scoring']): number {
  const terms = scoreTerms(memory, now, scoring);
  return terms.frequency + terms.recency + terms.importance;
}
