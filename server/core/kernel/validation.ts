// Input validation shared by every interface: the API, REST routes and the CLI all parse with these.
import { z } from 'zod';
import { badInput } from './errors.ts';

export const memoryIdSchema = z.number().int().positive();
export const contentSchema = z.string().trim().min(1, 'must not be empty').max(20_000);
export const tagsSchema = z
  .array(z.string().trim().min(1, 'a tag must not be empty').max(64))
  .max(32)
  .transform((tags) => [...new Set(tags)]);
export const importanceSchema = z.number().min(0).max(1);

/** Parses with `schema`, turning the first problem into a BAD_USER_INPUT error that names the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw badInput(field ? `${field}: ${issue.message}` : issue.message);
}
