// Memory tools for the model, as AI SDK tools: the typed client's tool definitions (the ones the
// MCP server and `sm tools` give: same names, descriptions and zod input schemas), each run by the
// client for one user. A failure the model can act on (unknown id, nothing matched) and the
// service out of reach both come back to the model as a tool error, never as a failed request.
import { TOOLS, toolSchemas, type ToolDefinition } from '@symbiosis-memory/client';
import { tool, type ToolSet } from 'ai';
import { connect, type MemoryOptions } from './connection.ts';

/** A failed tool call as the model reads it: ai 6 sends it the message, ai 7 `String(error)`; both send the message alone. */
class ToolError extends Error {
  override toString(): string {
    return this.message;
  }
}

/** The tools `memoryTools` gives unless told otherwise: search, remember, forget, and the user's profile. */
export const DEFAULT_TOOLS = ['search_memory', 'remember_fact', 'forget', 'get_profile'] as const;

/** Every tool there is, by name: the MCP server's tools (`sm tools` lists them with their descriptions). */
export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);

export type MemoryToolsOptions = MemoryOptions & {
  /** Which tools, by name (default `DEFAULT_TOOLS`; `TOOL_NAMES` lists them all). */
  tools?: readonly string[];
};

/** What a memory tool returns: the text the model reads, and the same as data. */
export type MemoryToolOutput = { text: string; structured: Record<string, unknown> };

/** AI SDK tools over the memory of `userId` (and `agentId`): `generateText({ model, tools: memoryTools({ url, userId }) })`. */
export function memoryTools(options: MemoryToolsOptions): ToolSet {
  const names = options.tools ?? DEFAULT_TOOLS;
  const unknown = names.filter((name) => !TOOL_NAMES.includes(name));
  if (unknown.length)
    throw new TypeError(`symbiosis-memory: no tool named ${unknown.join(', ')} (there are ${TOOL_NAMES.join(', ')})`);
  const memory = connect(options);
  // Bound to the user: every call of every tool reads and writes that user's memory only.
  const client =
    options.userId === undefined && options.agentId === undefined
      ? memory.client
      : memory.client.forUser(options.userId as string, options.agentId);
  const make = (definition: ToolDefinition) =>
    tool({
      description: definition.description,
      inputSchema: toolSchemas(definition).strictInput,
      async execute(input): Promise<MemoryToolOutput> {
        let result;
        try {
          result = await memory.call(definition.name, () => client.executeTool(definition.name, input));
        } catch (error) {
          memory.warn(`tool ${definition.name} failed`, error);
          throw new ToolError('Memory is unavailable right now; answer without it.', { cause: error });
        }
        if (result.isError) throw new ToolError(result.text);
        return { text: result.text, structured: result.structured };
      },
      toModelOutput: ({ output }) => ({ type: 'text', value: output.text }),
    });
  return Object.fromEntries(names.map((name) => [name, make(TOOLS.find((t) => t.name === name)!)]));
}
