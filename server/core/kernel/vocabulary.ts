// Value lists of the API's arguments that the CLI offers as choices: kept free of imports, so
// `sm` builds its commands without loading zod or drizzle.
export const SEARCH_KINDS = ['fact', 'reflection', 'instruction', 'preference', 'profile', 'turn'] as const;

/** Every ranked list that can feed the fusion. A hit lists its rank in each (null: not found by it). */
export const SIGNALS = ['lexical', 'vector', 'entity', 'memory'] as const;

export const MEMORY_SORTS = ['score', 'recent', 'hits'] as const;

/** Provider names a config can list (`ner.providers`). `regex` always runs. */
export const NER_PROVIDERS = ['regex', 'known', 'compromise', 'llm'] as const;
export type NerProviderName = (typeof NER_PROVIDERS)[number];
