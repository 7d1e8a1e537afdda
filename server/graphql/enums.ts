// Enums of the API. Values are UPPER_CASE on the wire and the db's lower-case strings inside.
import { builder } from './builder.ts';

export const Role = builder.enumType('Role', {
  description: 'Who said a turn.',
  values: {
    USER: { value: 'user', description: 'The human.' },
    ASSISTANT: { value: 'assistant', description: 'The assistant (the model).' },
  } as const,
});

export const MemoryKind = builder.enumType('MemoryKind', {
  description: 'What a memory is.',
  values: {
    FACT: { value: 'fact', description: 'A fact about the user or the world, extracted or remembered.' },
    REFLECTION: {
      value: 'reflection',
      description: 'A higher-level insight drawn from many facts; long-term and protected.',
    },
    INSTRUCTION: {
      value: 'instruction',
      description:
        'A standing instruction the user gave the assistant for every later answer: "always include version numbers", "never use semicolons", ' +
        '"from now on answer in French", "whenever I ask about X, show Y", "stop adding emojis". Not one: a one-off request, a question, ' +
        '"I always forget my keys" (a habit), "never mind", what someone else says, or what the assistant tells the user. In every context block; protected from decay and GC; a later contradicting one supersedes it.',
    },
    PREFERENCE: {
      value: 'preference',
      description:
        'A preference of the user ("I prefer…", "I\'d rather…", "I like / love / hate…", "my favourite…"). In every context block (within its share); protected; a contradicting one supersedes it.',
    },
    PROFILE: {
      value: 'profile',
      description:
        'A fact of the user\'s profile: name, where they live, work, family, diet and allergies, languages, tools. In every context block (within its share); protected; a newer value supersedes it ("I moved to Lisbon").',
    },
  } as const,
});

export const MemoryLayer = builder.enumType('MemoryLayer', {
  description: 'Where a memory lives. (The short-term layer is the recent turns of a session, not memories.)',
  values: {
    MID: { value: 'mid', description: 'Mid-term: new memories; scored, promoted or cleaned up by GC.' },
    LONG: {
      value: 'long',
      description: 'Long-term: promoted memories (hits >= 3, seen within 7 days) and reflections.',
    },
  } as const,
});

export const MemoryStatus = builder.enumType('MemoryStatus', {
  description: 'Whether a memory is in use.',
  values: {
    ACTIVE: { value: 'active', description: 'Used for context and search.' },
    ARCHIVED: {
      value: 'archived',
      description: 'Hidden from context and search (GC, decay, a conflict or by hand), kept for explain and history.',
    },
  } as const,
});

export const ExplanationStatus = builder.enumType('ExplanationStatus', {
  description: 'The state of an explained memory, including one that was hard-deleted.',
  values: {
    ACTIVE: { value: 'active', description: 'Used for context and search.' },
    ARCHIVED: { value: 'archived', description: 'Hidden from context and search, kept for history.' },
    DELETED: {
      value: 'deleted',
      description: 'Hard-deleted (forget, GC in delete mode, purge): only its decisions remain.',
    },
  } as const,
});

export const MemorySort = builder.enumType('MemorySort', {
  description: 'Order of a memory list.',
  values: {
    SCORE: { value: 'score', description: 'Highest salience score first (the default).' },
    RECENT: { value: 'recent', description: 'Most recently seen first.' },
    HITS: { value: 'hits', description: 'Most reinforced (hits) first.' },
  } as const,
});

export const MemoryAction = builder.enumType('MemoryAction', {
  description: 'A decision taken on a memory, as recorded in its decision log and published to `memoryEvents`.',
  values: {
    CREATED: { value: 'created', description: 'Saved as a new memory.' },
    MERGED: { value: 'merged', description: 'A duplicate was folded in: one more hit, seen now.' },
    UPDATED: { value: 'updated', description: 'Content, tags or importance changed by hand.' },
    PROMOTED: { value: 'promoted', description: 'Moved from mid-term to long-term.' },
    ARCHIVED: { value: 'archived', description: 'Hidden from context and search (GC, decay, conflict, by hand).' },
    RESTORED: { value: 'restored', description: 'Made active again by hand.' },
    DECAYED: { value: 'decayed', description: 'Confidence lowered by the forgetting curve.' },
    CONFIRMED: { value: 'confirmed', description: 'Protected: full confidence, never decays.' },
    SUPERSEDED: { value: 'superseded', description: 'Replaced by a newer memory (a conflict or a correction).' },
    DELETED: { value: 'deleted', description: 'Hard-deleted (forget, GC in delete mode, purge).' },
    PINNED: {
      value: 'pinned',
      description: 'Pinned: always in the context block (in its standing sections), exempt from GC and decay.',
    },
    UNPINNED: { value: 'unpinned', description: 'No longer pinned.' },
  } as const,
});

export const SaveAction = builder.enumType('SaveAction', {
  description: 'What saving (or extracting) a memory did.',
  values: {
    CREATED: { value: 'created', description: 'A new memory was created.' },
    MERGED: { value: 'merged', description: 'It duplicated an active memory, which was reinforced instead.' },
    SUPERSEDED: {
      value: 'superseded',
      description: 'A new memory was created and a conflicting older one archived (see `Memory.supersedes`).',
    },
    ARCHIVED: { value: 'archived', description: 'An existing memory was archived: the turn said it no longer holds.' },
    UNCHANGED: {
      value: 'unchanged',
      description: 'Already known from this very turn (a re-read, e.g. consolidation): nothing changed.',
    },
  } as const,
});

export const SourceReason = builder.enumType('SourceReason', {
  description: 'Why a memory is linked to a turn.',
  values: {
    EXTRACTED: { value: 'extracted', description: 'The memory was extracted from the turn.' },
    MERGED: { value: 'merged', description: 'The turn repeated the memory, which was reinforced.' },
    CONFLICT: { value: 'conflict', description: 'The turn contradicted an older fact; this memory replaced it.' },
    REMEMBERED: { value: 'remembered', description: 'The turn asked to remember it explicitly.' },
    CONSOLIDATED: { value: 'consolidated', description: 'Session consolidation derived it from the turn.' },
  } as const,
});
