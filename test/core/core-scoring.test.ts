import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../server/core/kernel/clock.ts';
import { resolveConfig } from '../../server/core/kernel/config.ts';
import { score, scoreTerms } from '../../server/core/memory/scoring.ts';

const scoring = resolveConfig([]).scoring;
const T0 = Date.UTC(2026, 0, 1);

describe('score', () => {
  it('is w_freq·ln(1+hits) + w_recency·exp(−λ·age_days) + w_importance·importance', () => {
    const memory = { hits: 4, importance: 1, createdAt: T0 };
    const now = T0 + 12.5 * DAY_MS;
    const terms = scoreTerms(memory, now, scoring);
    expect(terms.frequency).toBeCloseTo(Math.log(5), 12);
    expect(terms.recency).toBeCloseTo(Math.exp(-0.05 * 12.5), 12);
    expect(terms.importance).toBe(2);
    expect(score(memory, now, scoring)).toBeCloseTo(Math.log(5) + Math.exp(-0.625) + 2, 12);
  });

  it('starts at 1 for a new unimportant memory and falls below 0.5 after about two weeks', () => {
    const memory = { hits: 0, importance: 0, createdAt: T0 };
    expect(score(memory, T0, scoring)).toBe(1);
    expect(score(memory, T0 + 13 * DAY_MS, scoring)).toBeGreaterThan(0.5);
    expect(score(memory, T0 + 14 * DAY_MS, scoring)).toBeLessThan(0.5);
  });

  it('follows configured weights', () => {
    const custom = resolveConfig([
      { source: 'test', values: { scoring: { w_freq: 2, w_recency: 0, w_importance: 1, lambda: 1 } } },
    ]).scoring;
    expect(score({ hits: 1, importance: 1, createdAt: T0 }, T0 + DAY_MS, custom)).toBeCloseTo(2 * Math.log(2) + 1, 12);
  });

  it('never treats a future creation time as negative age', () => {
    expect(scoreTerms({ hits: 0, importance: 0, createdAt: T0 + DAY_MS }, T0, scoring).recency).toBe(1);
  });
});
