// The tools that read memory: search, context, the profile, an entity's page and the counts.
import { z } from 'zod';
import { SearchKind } from './generated/sdk.ts';
import { memoryOut, memoryShape, reads, time, tool } from './tool-definition.ts';

const KINDS = {
  fact: SearchKind.Fact,
  reflection: SearchKind.Reflection,
  instruction: SearchKind.Instruction,
  preference: SearchKind.Preference,
  profile: SearchKind.Profile,
  turn: SearchKind.Turn,
} as const;

export const searchMemory = tool({
  name: 'search_memory',
  title: 'Search memory',
  description:
    'Search long-term memory about the user: facts learnt from earlier conversations, weekly reflections, and past conversation turns, ' +
    'best match first. Use it before answering anything that depends on what the user said before (preferences, people, places, plans, dates). ' +
    'Plain words work best; names and dates in the query help.',
  input: {
    query: z.string().min(1).max(20_000).describe('What to look for, in plain words.'),
    limit: z.number().int().min(1).max(50).optional().describe('How many results (default 10).'),
    kinds: z
      .array(z.enum(['fact', 'reflection', 'instruction', 'preference', 'profile', 'turn']))
      .min(1)
      .optional()
      .describe(
        'Only these kinds (all by default): standing instructions, preferences and profile facts are kinds of their own.',
      ),
    since: time.optional().describe('Only what happened at or after this time.'),
    until: time.optional().describe('Only what happened at or before this time.'),
  },
  output: {
    hits: z.array(
      z.object({ kind: z.string(), id: z.number().int(), text: z.string(), at: z.string(), score: z.number() }),
    ),
  },
  annotations: reads,
  async run(sdk, args) {
    const { search } = await sdk.search({
      query: args.query,
      limit: args.limit ?? 10,
      kinds: args.kinds?.map((k) => KINDS[k]),
      from: args.since,
      to: args.until,
    });
    const hits = search.map((h) => ({
      kind: h.kind.toLowerCase(),
      id: h.id,
      text: h.text,
      at: h.at,
      score: h.score,
    }));
    const text = hits.length
      ? hits.map((h, i) => `${i + 1}. [${h.kind} ${h.id}, ${h.at.slice(0, 10)}] ${h.text}`).join('\n')
      : `Nothing in memory matches "${args.query}".`;
    return { text, structured: { hits } };
  },
});

export const getContext = tool({
  name: 'get_context',
  title: 'Get context',
  description:
    "The memory to keep in mind for the next reply, as a markdown block: first the user's standing instructions and what is known about them " +
    '(whatever the query), then the facts, past conversation excerpts and weekly insight most ' +
    'relevant to the query, each dated, packed into the token budget. Call it at the start of a conversation or topic, with what the ' +
    'user is asking about as the query.',
  input: {
    query: z
      .string()
      .max(20_000)
      .optional()
      .describe(
        'What the next reply is about (by default the latest user turn of the session; empty: the most recent memory).',
      ),
    session_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The current conversation, if turns are logged with add_turn.'),
    token_budget: z
      .number()
      .int()
      .min(50)
      .max(32_000)
      .optional()
      .describe('Size of the block in tokens (o200k_base; default 1000).'),
  },
  output: { markdown: z.string(), facts: z.number().int(), turns: z.number().int(), tokens_used: z.number().int() },
  annotations: reads,
  async run(sdk, args) {
    const { context } = await sdk.context({
      sessionId: args.session_id ?? 'mcp',
      query: args.query,
      tokenBudget: args.token_budget,
    });
    const count = (kind: string) => context.items.filter((i) => i.kind === kind).length;
    return {
      text: context.markdown || 'Memory holds nothing relevant yet.',
      structured: {
        markdown: context.markdown,
        facts: count('FACT'),
        turns: count('TURN'),
        tokens_used: context.tokensUsed,
      },
    };
  },
});

export const getProfile = tool({
  name: 'get_profile',
  title: "Get the user's profile",
  description:
    'What holds for every reply to this user: their standing instructions ("always include version numbers when I ask about libraries", ' +
    '"never use semicolons"), preferences, profile facts (name, home, work, family, diet and allergies, languages, tools) and pinned memories. ' +
    'Follow the instructions in every answer. get_context already opens with them; call this to see them all.',
  input: {
    limit: z.number().int().min(1).max(500).optional().describe('At most this many of each kind (default 500).'),
  },
  output: {
    instructions: z.array(z.object(memoryShape)),
    preferences: z.array(z.object(memoryShape)),
    profile: z.array(z.object(memoryShape)),
    pinned: z.array(z.object(memoryShape)),
  },
  annotations: reads,
  async run(sdk, args) {
    const { profile } = await sdk.profile({ limit: args.limit });
    const part = (title: string, rows: { id: number; content: string }[]) =>
      rows.length ? [`## ${title}`, ...rows.map((m) => `- ${m.content} (memory ${m.id})`)] : [];
    const lines = [
      ...part('Standing instructions', profile.instructions),
      ...part('Preferences', profile.preferences),
      ...part('Profile', profile.profile),
      ...part('Pinned', profile.pinned),
    ];
    return {
      text: lines.length
        ? lines.join('\n')
        : 'Memory holds no standing instructions, preferences or profile facts for this user yet.',
      structured: {
        instructions: profile.instructions.map(memoryOut),
        preferences: profile.preferences.map(memoryOut),
        profile: profile.profile.map(memoryOut),
        pinned: profile.pinned.map(memoryOut),
      },
    };
  },
});

export const getEntityInfo = tool({
  name: 'get_entity_info',
  title: 'Entity profile',
  description:
    'Everything memory holds about a person, place or thing by name (case and possessives do not matter; a first name works when only one person has it): ' +
    'its aliases, the facts that mention it and recent turns.',
  input: { name: z.string().min(1).max(200).describe('The name, e.g. "Maria" or "Lisbon".') },
  output: {
    name: z.string(),
    type: z.string(),
    aliases: z.array(z.string()),
    mentions: z.number().int(),
    facts: z.array(z.string()),
    turns: z.array(z.string()),
  },
  annotations: reads,
  async run(sdk, args) {
    const { entity } = await sdk.entity({ name: args.name, first: 10 });
    const facts = entity.memories.edges.map((e) => e.node.content);
    const turns = entity.turns.edges.map((e) => e.node.text);
    const lines = [
      `${entity.name} (${entity.type.toLowerCase()}), mentioned ${entity.mentionCount} times${entity.aliases.length ? `, also called ${entity.aliases.join(', ')}` : ''}.`,
      ...(facts.length ? ['Facts:', ...facts.map((f) => `- ${f}`)] : []),
      ...(turns.length ? ['Recent turns:', ...turns.map((t) => `- ${t}`)] : []),
    ];
    return {
      text: lines.join('\n'),
      structured: {
        name: entity.name,
        type: entity.type.toLowerCase(),
        aliases: entity.aliases,
        mentions: entity.mentionCount,
        facts,
        turns,
      },
    };
  },
});

export const memoryStats = tool({
  name: 'memory_stats',
  title: 'Memory statistics',
  description:
    'How much memory holds about the user: facts by status and layer, conversation turns, sessions and entities.',
  input: {},
  output: {
    memories: z.number().int(),
    active: z.number().int(),
    archived: z.number().int(),
    turns: z.number().int(),
    sessions: z.number().int(),
    entities: z.number().int(),
  },
  annotations: reads,
  async run(sdk) {
    const { stats } = await sdk.stats({});
    const structured = {
      memories: stats.memories.total,
      active: stats.memories.active,
      archived: stats.memories.archived,
      turns: stats.turns,
      sessions: stats.sessions,
      entities: stats.entities,
    };
    return {
      text: `${structured.active} active memories (${structured.archived} archived), ${structured.turns} turns in ${structured.sessions} sessions, ${structured.entities} entities.`,
      structured,
    };
  },
});
