// Reading a model's JSON answer: models wrap it in a fenced code block or an object of their own
// choosing, so the caller says how to unwrap it; anything that does not validate is a failure
// the caller handles (fall back or retry), never a crash.
import type { z } from 'zod';

export class InvalidLlmOutput extends Error {
  override name = 'InvalidLlmOutput';
}

/**
 * Parses `content` (bare or in a fenced code block), lets `unwrap` reshape what the model
 * wrapped it in, and validates it with `schema`; `what` names the answer in the error.
 */
export function parseLlmJson<T extends z.ZodType>(
  content: string,
  options: { schema: T; what: string; unwrap?: (parsed: unknown) => unknown },
): z.output<T> {
  const body = content.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // The output itself stays out of the message: it may quote the user.
    throw new InvalidLlmOutput(`not JSON (${body.length} characters)`);
  }
  const result = options.schema.safeParse(options.unwrap ? options.unwrap(parsed) : parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new InvalidLlmOutput(`invalid ${options.what} at ${issue.path.join('.') || 'root'}: ${issue.message}`);
  }
  return result.data;
}
