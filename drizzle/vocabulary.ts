// The value lists of the tables' enum columns, apart from the table definitions: the CLI offers them
// as choices without loading drizzle at start-up.
export const ROLES = ['user', 'assistant'] as const;
/** Instructions, preferences and profile facts are the standing memory: in every context, protected. */
export const MEMORY_KINDS = ['fact', 'reflection', 'instruction', 'preference', 'profile'] as const;
export const STANDING_KINDS = ['instruction', 'preference', 'profile'] as const;
/** Which active memories open every context block; the same text in the query and its partial index, so SQLite sees the index applies. */
export const STANDING_CONDITION = `kind in (${STANDING_KINDS.map((k) => `'${k}'`).join(', ')}) or pinned = 1`;
export const MEMORY_LAYERS = ['mid', 'long'] as const;
export const MEMORY_STATUSES = ['active', 'archived'] as const;
export const SOURCE_REASONS = ['extracted', 'merged', 'conflict', 'remembered', 'consolidated'] as const;
export const RELATION_KINDS = ['supersedes', 'derived_from'] as const;
export const JOB_STATUSES = ['pending', 'running', 'done', 'dead'] as const;
