// The memory operations as tools a model can call: one definition each (name, description for
// a model, JSON-schema-able input and output, hints), run over the typed client. The MCP server
// (`sm mcp`, /mcp) registers these, `sm tools` prints them for OpenAI / Anthropic function
// calling, and `executeTool` runs a model's tool call in one line.
import { z } from 'zod';
import { SearchKind, type Sdk } from './generated/sdk.ts';

/** What a tool hands back: text for the model, and the same as structured data matching its output schema. */
export type ToolResult = { text: string; structured: Record<string, unknown> };

export type ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** MCP tool annotations: what calling it does to memory. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  run(sdk: Sdk, args: z.infer<z.ZodObject<I>>): Promise<ToolResult>;
};

const tool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(definition: ToolDefinition<I, O>) =>
  definition as unknown as ToolDefinition;

const reads = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const time = z.string().describe('ISO-8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T10:00:00Z');
const memoryShape = { id: z.number().int(), content: z.string(), status: z.string() };
const memoryOut = (m: { id: number; content: string; status: string }) => ({
  id: m.id,
  content: m.content,
  status: m.status.toLowerCase(),
});

/** A domain failure the model should read (unknown id, nothing matched): the tool's result, not a protocol error. */
export class ToolError extends Error {}

const KINDS = {
  fact: SearchKind.Fact,
  reflection: SearchKind.Reflection,
  instruction: SearchKind.Instruction,
  preference: SearchKind.Preference,
  profile: SearchKind.Profile,
  turn: SearchKind.Turn,
} as const;

export const TOOLS: ToolDefinition[] = [
  tool({
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
  }),
  tool({
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
  }),
  tool({
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
  }),
  tool({
    name: 'remember_fact',
    title: 'Remember a fact',
    description:
      'Save a fact about the user to long-term memory, written as a short sentence in the third person ("Alex is allergic to peanuts"). ' +
      'Use it when the user states something worth keeping or asks you to remember it. Saving the same fact again strengthens it instead of duplicating it.',
    input: {
      text: z.string().min(1).max(20_000).describe('The fact, as a short sentence.'),
      importance: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('0 (trivia) to 1 (never forget: health, safety, strong preferences).'),
      tags: z.array(z.string().min(1).max(64)).max(32).optional().describe('Labels such as health, travel, work.'),
    },
    output: { action: z.enum(['created', 'merged']), memory: z.object(memoryShape) },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(sdk, args) {
      const { remember } = await sdk.remember({
        input: { content: args.text, importance: args.importance, tags: args.tags },
      });
      const action = remember.action.toLowerCase() as 'created' | 'merged';
      return {
        text: `${action === 'created' ? 'Saved' : 'Already known; strengthened'} memory ${remember.memory.id}: ${remember.memory.content}`,
        structured: { action, memory: memoryOut(remember.memory) },
      };
    },
  }),
  tool({
    name: 'correct_fact',
    title: 'Correct a fact',
    description:
      'Replace a fact that is wrong or out of date. The old fact is kept as history (archived, superseded by the new one). Give the memory `id` ' +
      '(from search_memory) or a `query` naming the fact; the best matching active fact is corrected.',
    input: {
      id: z.number().int().positive().optional().describe('The memory to correct.'),
      query: z
        .string()
        .min(1)
        .max(20_000)
        .optional()
        .describe('Words of the fact to correct, when the id is not known.'),
      new_text: z.string().min(1).max(20_000).describe('The corrected fact.'),
    },
    output: { previous: z.object(memoryShape), memory: z.object(memoryShape) },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(sdk, args) {
      const id = args.id ?? (await bestFact(sdk, args.query));
      const { correctMemory } = await sdk.correctMemory({ id, content: args.new_text });
      return {
        text: `Corrected memory ${correctMemory.previous.id} ("${correctMemory.previous.content}") to memory ${correctMemory.memory.id}: ${correctMemory.memory.content}`,
        structured: { previous: memoryOut(correctMemory.previous), memory: memoryOut(correctMemory.memory) },
      };
    },
  }),
  tool({
    name: 'confirm_fact',
    title: 'Confirm a fact',
    description:
      'Mark a fact as confirmed by the user: full confidence, it never fades or gets cleaned up. Use it when the user affirms something memory holds.',
    input: { id: z.number().int().positive().describe('The memory to confirm (from search_memory).') },
    output: { memory: z.object({ ...memoryShape, protected: z.boolean() }) },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(sdk, args) {
      const { confirmMemory } = await sdk.confirmMemory({ id: args.id });
      return {
        text: `Confirmed memory ${confirmMemory.id}: ${confirmMemory.content}`,
        structured: { memory: { ...memoryOut(confirmMemory), protected: confirmMemory.protected } },
      };
    },
  }),
  tool({
    name: 'forget',
    title: 'Forget',
    description:
      'Delete for good (privacy): by `id`, that memory; by `query`, every memory and conversation turn containing those words. With a query, ' +
      'nothing is deleted unless `confirm` is true: without it the tool only lists what would go. Use it when the user asks you to forget something.',
    input: {
      id: z.number().int().positive().optional().describe('The memory to delete.'),
      query: z
        .string()
        .min(1)
        .max(20_000)
        .optional()
        .describe('Words whose every occurrence is deleted (memories and turns).'),
      confirm: z.boolean().optional().describe('With a query: true to delete; otherwise a preview.'),
    },
    output: {
      deleted: z.boolean(),
      memoryIds: z.array(z.number().int()),
      turnIds: z.array(z.number().int()),
      preview: z.array(z.string()),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(sdk, args) {
      if ((args.id === undefined) === (args.query === undefined))
        throw new ToolError('Give exactly one of id or query.');
      if (args.id === undefined && !args.confirm) {
        const { memories } = await sdk.memories({ q: args.query, first: 20 });
        const preview = memories.edges.map((e) => `${e.node.id}: ${e.node.content}`);
        return {
          text: preview.length
            ? `Would delete ${memories.totalCount} memories (and any turns) containing "${args.query}":\n${preview.join('\n')}\nCall again with confirm: true to delete.`
            : `No memory contains "${args.query}"; with confirm: true, turns containing it would still be deleted.`,
          structured: { deleted: false, memoryIds: memories.edges.map((e) => e.node.id), turnIds: [], preview },
        };
      }
      const { forget } = await sdk.forget(args.id !== undefined ? { id: args.id } : { text: args.query });
      return {
        text: `Deleted ${forget.memoryIds.length} memories and ${forget.turnIds.length} turns.`,
        structured: { deleted: true, memoryIds: forget.memoryIds, turnIds: forget.turnIds, preview: [] },
      };
    },
  }),
  tool({
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
  }),
  tool({
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
  }),
  tool({
    name: 'add_turn',
    title: 'Log a conversation turn',
    description:
      'Store one message of the conversation, so memory can learn from it (facts are extracted from user turns at once) and get_context can ' +
      'use the recent ones. For clients that log the conversation; one call per message.',
    input: {
      session_id: z.string().min(1).max(200).describe('The conversation it belongs to.'),
      role: z.enum(['user', 'assistant']).describe('Who said it.'),
      text: z.string().min(1).max(1_000_000).describe('What was said (up to 1,000,000 characters).'),
    },
    output: {
      turnId: z.number().int(),
      extracted: z.array(z.object({ action: z.string(), id: z.number().int(), content: z.string() })),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(sdk, args) {
      const { addTurn } = await sdk.addTurn({
        input: { sessionId: args.session_id, role: args.role === 'user' ? 'USER' : 'ASSISTANT', text: args.text },
      });
      const extracted = addTurn.extracted.map((e) => ({
        action: e.action.toLowerCase(),
        id: e.memory.id,
        content: e.memory.content,
      }));
      return {
        text: `Stored turn ${addTurn.turn.id}.${extracted.length ? ` Learnt: ${extracted.map((e) => `${e.content} (${e.action})`).join('; ')}` : ''}`,
        structured: { turnId: addTurn.turn.id, extracted },
      };
    },
  }),
];

/** The best matching active fact for `query`, or a ToolError the model can read. */
async function bestFact(sdk: Sdk, query: string | undefined): Promise<number> {
  if (!query) throw new ToolError('Give the memory id, or a query naming the fact.');
  const { search } = await sdk.search({
    query,
    kinds: [SearchKind.Fact, SearchKind.Instruction, SearchKind.Preference, SearchKind.Profile],
    limit: 1,
  });
  if (!search[0]) throw new ToolError(`No fact matches "${query}".`);
  return search[0].id;
}

export const toolNamed = (name: string) => TOOLS.find((t) => t.name === name);

// A tool's schemas as zod objects, made once per tool: zod compiles an object schema's parser on
// its first use, so an object made for every call paid that compile on every call.
const objects = new WeakMap<ToolDefinition, { input: z.ZodObject; strictInput: z.ZodObject; output: z.ZodObject }>();

/** `definition`'s input (as given, and strict: no unknown keys) and output as zod objects. */
export function toolSchemas(definition: ToolDefinition) {
  let made = objects.get(definition);
  if (!made) {
    const input = z.object(definition.input);
    objects.set(definition, (made = { input, strictInput: input.strict(), output: z.object(definition.output) }));
  }
  return made;
}

/** Checks a tool call's arguments against its input schema; a ToolError names the first problem. */
export function parseToolArguments(definition: ToolDefinition, args: unknown): Record<string, unknown> {
  const parsed = toolSchemas(definition).strictInput.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ToolError(`${definition.name}: ${issue.path.join('.') || 'arguments'}: ${issue.message}`);
}

/** Function-calling definitions of the tools, in OpenAI's or Anthropic's format. */
export function toolDefinitions(format: 'openai' | 'anthropic') {
  return TOOLS.map((t) => {
    const parameters = z.toJSONSchema(toolSchemas(t).strictInput, { target: 'draft-7' });
    delete (parameters as { $schema?: string }).$schema;
    return format === 'openai'
      ? { type: 'function' as const, function: { name: t.name, description: t.description, parameters } }
      : { name: t.name, description: t.description, input_schema: parameters };
  });
}

/** Codes of failures a model can act on (a wrong id, nothing matched, bad arguments, not allowed). */
const DOMAIN_CODES = new Set(['NOT_FOUND', 'BAD_USER_INPUT', 'FORBIDDEN']);

export type ToolCallResult = ToolResult & { isError: boolean };

/**
 * Runs a model's tool call: `name` and `args` as the model sent them. Bad arguments, an unknown
 * id or nothing matched come back as `isError` with a message for the model; anything else
 * (the server unreachable, a bug) throws.
 */
export async function executeTool(sdk: Sdk, name: string, args: unknown): Promise<ToolCallResult> {
  const definition = toolNamed(name);
  if (!definition)
    return {
      isError: true,
      text: `Unknown tool "${name}": use one of ${TOOLS.map((t) => t.name).join(', ')}.`,
      structured: {},
    };
  try {
    return { ...(await definition.run(sdk, parseToolArguments(definition, args) as never)), isError: false };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof ToolError || (typeof code === 'string' && DOMAIN_CODES.has(code)))
      return { isError: true, text: (error as Error).message, structured: {} };
    throw error;
  }
}
