// Calendar arithmetic on day numbers (days since 1970-01-01 of a calendar date), and the calendar
// day of an instant in a time zone: what time-phrases.ts resolves phrases with.
import { DAY_MS } from '../kernel/clock.ts';

/** How precise a resolved date is: a calendar day, week (Monday to Sunday), weekend, month, year, or a fuzzy range. */
export type DateGrain = 'day' | 'week' | 'weekend' | 'month' | 'year' | 'about';

/** A range of calendar days, with the single best day of a fuzzy one. */
export type Days = { from: number; to: number; grain: DateGrain; point?: number };

/** 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday). */
export const weekdayOf = (day: number) => (((day + 3) % 7) + 7) % 7;
export const mondayOf = (day: number) => day - weekdayOf(day);
export const dayNumber = (year: number, month: number, date: number) =>
  Math.floor(Date.UTC(year, month, date) / DAY_MS);
export const ymd = (day: number) => {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), date: d.getUTCDate() };
};
export const monthRange = (year: number, month: number): Days => ({
  from: dayNumber(year, month, 1),
  to: dayNumber(year, month + 1, 1) - 1,
  grain: 'month',
});
export const yearRange = (year: number): Days => ({
  from: dayNumber(year, 0, 1),
  to: dayNumber(year + 1, 0, 1) - 1,
  grain: 'year',
});
export const oneDay = (day: number): Days => ({ from: day, to: day, grain: 'day' });
export const about = (from: number, to: number, point = Math.round((from + to) / 2)): Days => ({
  from,
  to,
  grain: 'about',
  point,
});
/** The same date `months` calendar months away (clamped to the month's length). */
export function shiftMonths(day: number, months: number): number {
  const { year, month, date } = ymd(day);
  const last = dayNumber(year, month + months + 1, 1) - 1;
  return Math.min(dayNumber(year, month + months, date), last);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
let machine: string | undefined;
/** The machine's zone, when the config names none (read once: building a formatter costs tens of microseconds). */
export const machineZone = () => (machine ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');

/** The calendar day (day number) of instant `at` in `zone`. */
export function localDay(at: number, zone = 'UTC'): number {
  if (zone === 'UTC' || zone === 'Etc/UTC' || zone === 'GMT') return Math.floor(at / DAY_MS);
  let format = formatters.get(zone);
  if (!format)
    formatters.set(
      zone,
      (format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
      })),
    );
  let year = 0;
  let month = 0;
  let date = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') date = Number(part.value);
  }
  return dayNumber(year, month - 1, date);
}
