// The memory operations as tools a model can call, run over the typed client. The MCP server
// (`sm mcp`, /mcp) registers these, `sm tools` prints them for OpenAI / Anthropic function
// calling, and `executeTool` runs a model's tool call in one line. One definition each, in
// tools-read.ts and tools-write.ts (tool-definition.ts says what a definition holds).
import { z } from 'zod';
import type { Sdk } from './generated/sdk.ts';
import { type ToolDefinition, ToolError, type ToolResult } from './tool-definition.ts';
import { getContext, getEntityInfo, getProfile, memoryStats, searchMemory } from './tools-read.ts';
import { addTurn, confirmFact, correctFact, forgetTool, rememberFact } from './tools-write.ts';

export { type ToolDefinition, ToolError, type ToolResult } from './tool-definition.ts';

export const TOOLS: ToolDefinition[] = [
  searchMemory,
  getContext,
  getProfile,
  rememberFact,
  correctFact,
  confirmFact,
  forgetTool,
  getEntityInfo,
  memoryStats,
  addTurn,
];

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
