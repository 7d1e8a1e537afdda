// LLM extraction: the turn plus related memories go in; a JSON array of actions comes out,
// validated with zod. Anything else is a failure (the caller falls back or retries), never a crash.
import { llmActionsSchema, type LlmAction } from '../core/extraction/extract-turn.ts';
import type { MemoryRow } from '../core/memory/memories.ts';
import type { Llm } from './client.ts';
import { parseLlmJson } from './llm-json.ts';

const SYSTEM_PROMPT = `You maintain the long-term memory of an assistant. From the user's message, extract durable facts
about the speaker (identity, preferences, plans, relationships, events with their time) as short standalone
sentences that name the speaker ("Alex likes JRPGs"). Give each new memory its kind:
- "instruction": the user tells the assistant how to answer from now on ("Always include version numbers when I ask
  about libraries", "Never use semicolons", "From now on answer in French", "Stop adding emojis"); keep the user's own words.
  Not an instruction: a one-off request or question, a habit ("I always forget my keys"), "never mind", what someone
  else says, anything the assistant says.
- "preference": what the user prefers, likes or dislikes ("Alex prefers minimal dependencies").
- "profile": the user's name, home, work, family, diet and allergies, languages, tools.
- "fact": anything else worth keeping.
Answer with ONLY a JSON array, no prose:
[{"action":"create","kind":"fact"|"instruction"|"preference"|"profile","content":"...","importance":0 or 1,"tags":["..."]},
 {"action":"merge","id":<existing id>,"content":"..."},
 {"action":"archive","id":<existing id>,"content":"why it is obsolete"}]
Use "merge" when a fact restates an existing memory, "archive" when the message makes an existing memory false
(a new instruction that contradicts an old one archives the old one).
Answer [] when there is nothing worth remembering.`;

/** Accepts a bare array, a fenced code block, or an object wrapping the array under any key. */
export function parseLlmActions(content: string): LlmAction[] {
  return parseLlmJson(content, {
    schema: llmActionsSchema,
    what: 'actions',
    unwrap: (parsed) =>
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (Object.values(parsed).find(Array.isArray) ?? [parsed])
        : parsed,
  });
}

export async function llmExtract(llm: Llm, input: { speaker: string; text: string; related: MemoryRow[] }) {
  const memories = listMemories(input.related);
  return chatActions(
    llm,
    SYSTEM_PROMPT,
    `Speaker: ${input.speaker}\nExisting memories:\n${memories}\n\nMessage:\n${input.text}`,
  );
}

function listMemories(related: MemoryRow[]): string {
  return related.map((m) => `#${m.id}: ${m.content}`).join('\n') || '(none)';
}

async function chatActions(llm: Llm, system: string, user: string) {
  const result = await llm.chat([
    { role: 'system', content: system },
    { role: 'user', content: user },
  ]);
  return {
    actions: parseLlmActions(result.content),
    usage: { promptTokens: result.promptTokens, completionTokens: result.completionTokens },
  };
}

const PAGE_PROMPT = `You consolidate a finished conversation into long-term memory. Extract durable facts about
the speakers (identity, preferences, plans, relationships, events with their dates) as short standalone
sentences naming the speaker; kind "instruction" for what a user tells the assistant to do in every later answer
(in their own words), "preference" for what they prefer, "profile" for name, home, work, family, diet, languages,
tools, else "fact". Answer with ONLY a JSON array:
[{"action":"create","turnId":<id of the turn it comes from>,"kind":"fact"|"instruction"|"preference"|"profile","content":"...","importance":0 or 1,"tags":["..."]},
 {"action":"merge","id":<existing memory id>,"turnId":<id>,"content":"..."},
 {"action":"archive","id":<existing memory id>,"turnId":<id>,"content":"why it is obsolete"}]
Answer [] when nothing is worth remembering.`;

/** One consolidation page (up to 30 turns) in, actions out. */
export async function llmExtractPage(
  llm: Llm,
  input: { turns: { id: number; speaker: string; text: string }[]; related: MemoryRow[] },
) {
  const dialogue = input.turns.map((t) => `[turn ${t.id}] ${t.speaker}: ${t.text}`).join('\n');
  return chatActions(
    llm,
    PAGE_PROMPT,
    `Existing memories:\n${listMemories(input.related)}\n\nConversation:\n${dialogue}`,
  );
}
