// A session's summary by the model: the session's extractive digest (one line per exchange)
// goes in, a few sentences come out. An empty answer is a failure (the job retries); the
// extractive digest stands meanwhile.
import type { Llm } from './client.ts';

const SYSTEM_PROMPT = `You write the digest of one finished conversation between a user and an assistant, for the
assistant's long-term memory. You get the conversation's date and one line per exchange, in order (the user's
request, then the start of the answer). Write at most 6 short sentences, in the order things happened: what the
user worked on or asked for, what they decided or changed, and what came of it. Name concrete things (tools,
versions, numbers, names). Plain text only, no headings, no lists, no preamble.`;

/** Characters of digest lines sent, and of summary kept. */
export const DIGEST_INPUT_CHARS = 24_000;
export const SUMMARY_CHARS = 1_200;

export class EmptySummary extends Error {
  override name = 'EmptySummary';
}

export async function llmSummarizeSession(llm: Llm, input: { date: string; lines: string[] }) {
  let used = 0;
  const lines: string[] = [];
  for (const line of input.lines) {
    if (used + line.length > DIGEST_INPUT_CHARS) break;
    lines.push(line);
    used += line.length + 1;
  }
  const result = await llm.chat([
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Date: ${input.date}\nExchanges:\n${lines.join('\n')}` },
  ]);
  const summary = result.content.replace(/\s+/g, ' ').trim().slice(0, SUMMARY_CHARS);
  if (!summary) throw new EmptySummary('the model returned no summary');
  return { summary, usage: { promptTokens: result.promptTokens, completionTokens: result.completionTokens } };
}
