// The tools that change memory: remember, correct, confirm and forget a fact, and log a turn.
import { z } from 'zod';
import { SearchKind, type Sdk } from './generated/sdk.ts';
import { memoryOut, memoryShape, tool, ToolError } from './tool-definition.ts';

export const rememberFact = tool({
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
});

export const correctFact = tool({
  name: 'correct_fact',
  title: 'Correct a fact',
  description:
    'Replace a fact that is wrong or out of date. The old fact is kept as history (archived, superseded by the new one). Give the memory `id` ' +
    '(from search_memory) or a `query` naming the fact; the best matching active fact is corrected.',
  input: {
    id: z.number().int().positive().optional().describe('The memory to correct.'),
    query: z.string().min(1).max(20_000).optional().describe('Words of the fact to correct, when the id is not known.'),
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
});

export const confirmFact = tool({
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
});

export const forgetTool = tool({
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
    if ((args.id === undefined) === (args.query === undefined)) throw new ToolError('Give exactly one of id or query.');
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
});

export const addTurn = tool({
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
});

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
