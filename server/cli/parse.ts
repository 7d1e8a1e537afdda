// Option parsers: a bad value is a usage error (exit 2) that names the option.
import { parseTime } from '../services/kernel.ts';
import { InvalidArgumentError } from 'commander';

// The API's Int is 32-bit: a flag outside it fails here, naming the flag, in both modes alike.
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number');
  const n = Number(value);
  if (n < INT_MIN || n > INT_MAX)
    throw new InvalidArgumentError(`expected a whole number from ${INT_MIN} to ${INT_MAX}`);
  return n;
}

export function number(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

/** A time as the API takes it: ISO-8601 or epoch milliseconds, checked here for a clear message. */
export function time(value: string): string {
  const ms = parseTime(value);
  if (ms === null) throw new InvalidArgumentError('expected ISO-8601 (2024-05-01T10:00:00Z) or epoch milliseconds');
  if (ms < 0) throw new InvalidArgumentError('expected a time from 1970 on');
  return /^-?\d+$/.test(value.trim()) ? new Date(Number(value)).toISOString() : value;
}

export const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Upper-case enum values of the API from the CLI's lower-case words. */
export const upper = <T extends string>(value: T | undefined) => value?.toUpperCase() as Uppercase<T> | undefined;

/** A comma-separated list whose every item must be one of `choices`. */
export const listOf =
  (choices: readonly string[]) =>
  (value: string): string[] => {
    const items = list(value);
    const bad = items.find((item) => !choices.includes(item));
    if (bad !== undefined || items.length === 0)
      throw new InvalidArgumentError(
        `expected a comma-separated list of ${choices.join(', ')}${bad ? ` (got '${bad}')` : ''}`,
      );
    return items;
  };
