// The `llm` NER provider: an OpenAI-compatible model names the entities, as JSON validated with
// zod. It lives outside server/core (network) and is injected into the accurate strategy. An
// entity the model names but the text does not contain is dropped: a link must point at text.
import { z } from 'zod';
import { displayName, EntityType, type NerEntity, type NerProvider } from '../core/entities/types.ts';
import type { Llm } from './client.ts';
import { parseLlmJson } from './llm-json.ts';

const SYSTEM_PROMPT = `You find named entities in a message. Answer with ONLY JSON, no prose:
{"entities":[{"text":"<exactly as written in the message>","type":"person|organization|location|project|other"}]}
Include people, organisations, places, projects and products, named in the message itself.
Leave out pronouns, common nouns, dates, emails, URLs, @mentions and #hashtags. Answer {"entities":[]} when there are none.`;

const LLM_TYPES = [
  EntityType.Person,
  EntityType.Organization,
  EntityType.Location,
  EntityType.Project,
  EntityType.Other,
] as const;

const answerSchema = z.object({
  entities: z
    .array(
      z.object({
        text: z.string().trim().min(1).max(200),
        // Models invent types ("place", "company"): keep the entity, file it under `other`.
        type: z
          .string()
          .transform((t) =>
            (LLM_TYPES as readonly string[]).includes(t.toLowerCase())
              ? (t.toLowerCase() as (typeof LLM_TYPES)[number])
              : EntityType.Other,
          ),
      }),
    )
    .max(100),
});

// Above compromise (it reads the whole sentence), below the structured regex patterns and the
// known-entities matcher (which already points at a registered entity).
const CONFIDENCE = 0.8;

/** Accepts the object, a bare array of entities, or either inside a fenced code block. */
export function parseLlmEntities(content: string, text: string): NerEntity[] {
  const answer = parseLlmJson(content, {
    schema: answerSchema,
    what: 'entities',
    unwrap: (parsed) => (Array.isArray(parsed) ? { entities: parsed } : parsed),
  });
  const lower = text.toLowerCase();
  const found: NerEntity[] = [];
  for (const entity of answer.entities) {
    const start = lower.indexOf(entity.text.toLowerCase());
    if (start < 0) continue;
    const end = start + entity.text.length;
    const surface = text.slice(start, end);
    const name = displayName(surface, entity.type);
    if (name)
      found.push({ text: surface, name, type: entity.type, start, end, confidence: CONFIDENCE, provider: 'llm' });
  }
  return found;
}

export function llmNerProvider(llm: Llm): NerProvider {
  return {
    name: 'llm',
    async extract(text) {
      const answer = await llm.chat([
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: text },
      ]);
      return parseLlmEntities(answer.content, text);
    },
  };
}
