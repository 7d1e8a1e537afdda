// The clock is injected everywhere so tests, imports and simulations can set time.
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };

export const fixedClock = (at: number): Clock => ({ now: () => at });

export const DAY_MS = 86_400_000;

/** Parses an ISO-8601 date-time or epoch milliseconds; null when it is neither. */
export function parseTime(value: string): number | null {
  const trimmed = value.trim();
  if (/^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return null;
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? null : ms;
}

export const daysBetween = (from: number, to: number) => Math.max(0, (to - from) / DAY_MS);
