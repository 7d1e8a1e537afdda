// The MCP server (docs/architecture.md#adapters): the memory tools of the typed client, resources to read memory by URI, and
// a prompt that tells an agent when to call which tool, over one space's client. `sm mcp` serves
// it over stdio; the service at /mcp over Streamable HTTP (http/mcp-route.ts).
import { VERSION } from '../services/kernel.ts';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Sdk } from '../../client/src/generated/sdk.ts';
import { executeTool, TOOLS, toolSchemas } from '../../client/src/tools.ts';

const USE_MEMORY = `You have long-term memory about the user through these tools.
- At the start of a conversation or a new topic, call get_context with what the user is asking about; it opens with the user's standing instructions and profile: follow the instructions in every answer (get_profile lists them all).
- Before answering anything that depends on the past (preferences, people, places, plans, dates), call search_memory.
- When the user tells you something worth keeping, call remember_fact with a short third-person sentence; importance 1 for health, safety and strong preferences.
- When a remembered fact turns out wrong or outdated, call correct_fact (history is kept); when the user affirms one, confirm_fact.
- When the user asks you to forget something, call forget: with a query it first shows what would go; call it again with confirm: true once the user agrees.
- To learn about a person or place the user mentions, call get_entity_info.
- If your client logs the conversation itself, call add_turn once per message, user and assistant alike.
Never invent memories: say so when memory has nothing.`;

const text = (uri: string, body: string, mimeType = 'text/markdown') => ({ contents: [{ uri, mimeType, text: body }] });

// The service's /mcp is stateless: every request makes a server (http/mcp-route.ts). Two things the SDK
// does for each server are the same every time, and were most of a request's CPU (8.4 ms of server
// CPU a search_memory call, 9.3 ms a tools/list): a new Ajv instance (it validates elicitation
// answers, which these tools never ask for), and tools/list's conversion of every tool's zod
// schemas to JSON Schema. So one validator serves every server, and the first tools/list answer
// (the tools are fixed: TOOLS) is kept for the process.
let validator: AjvJsonSchemaValidator | undefined;
let toolList: Promise<unknown> | undefined;

/** Has `server` answer tools/list from the process's kept answer, made by the SDK's own handler the first time. */
function keepToolList(server: McpServer) {
  const inner = server.server;
  const set = inner.setRequestHandler.bind(inner);
  inner.setRequestHandler = ((schema: unknown, handler: (...args: unknown[]) => unknown) =>
    set(
      schema as never,
      (schema === ListToolsRequestSchema
        ? (...args: unknown[]) =>
            (toolList ??= Promise.resolve(handler(...args)).catch(
              (error: unknown) => ((toolList = undefined), Promise.reject(error)),
            ))
        : handler) as never,
    )) as typeof inner.setRequestHandler;
}

export function createMcpServer(sdk: Sdk): McpServer {
  const server = new McpServer(
    { name: 'symbiosis-memory', version: VERSION },
    { instructions: USE_MEMORY, jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()) },
  );
  keepToolList(server);
  registerTools(server, sdk);
  registerResources(server, sdk);
  server.registerPrompt(
    'use-memory',
    {
      title: 'Use memory',
      description: 'When to call which memory tool: paste into the system prompt of an agent that has these tools.',
    },
    () => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: USE_MEMORY } }] }),
  );
  return server;
}

/** The typed client's tools, each answered by executeTool over the space's client. */
function registerTools(server: McpServer, sdk: Sdk) {
  for (const definition of TOOLS) {
    server.registerTool(
      definition.name,
      // Zod objects made once per tool: given the raw shapes, the SDK made new ones for every server.
      {
        title: definition.title,
        description: definition.description,
        inputSchema: toolSchemas(definition).input,
        outputSchema: toolSchemas(definition).output,
        annotations: definition.annotations,
      },
      async (args: Record<string, unknown>) => {
        const result = await executeTool(sdk, definition.name, args);
        return result.isError
          ? { isError: true, content: [{ type: 'text' as const, text: result.text }] }
          : { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.structured };
      },
    );
  }
}

/** Memory to read by URI: a session's context, the profile, an entity, a memory with its explanation. */
function registerResources(server: McpServer, sdk: Sdk) {
  server.registerResource(
    'context',
    new ResourceTemplate('memory://context/{session}', { list: undefined }),
    {
      title: 'Context for a session',
      description: 'The memory block to keep in mind for the next reply in this session (markdown).',
      mimeType: 'text/markdown',
    },
    async (uri, { session }) => {
      const { context } = await sdk.context({ sessionId: decodeURIComponent(String(session)) });
      return text(uri.href, context.markdown || '(memory holds nothing relevant yet)');
    },
  );
  server.registerResource(
    'profile',
    'memory://profile',
    {
      title: "The user's profile",
      description:
        'Standing instructions, preferences, profile facts and pinned memories: what holds for every reply (markdown).',
      mimeType: 'text/markdown',
    },
    async (uri) => {
      const result = await executeTool(sdk, 'get_profile', {});
      if (result.isError) throw new Error(result.text);
      return text(uri.href, result.text);
    },
  );
  server.registerResource(
    'entity',
    new ResourceTemplate('memory://entities/{name}', { list: undefined }),
    {
      title: 'Entity profile',
      description: 'What memory holds about a person, place or thing, by name (markdown).',
      mimeType: 'text/markdown',
    },
    async (uri, { name }) => {
      const result = await executeTool(sdk, 'get_entity_info', { name: decodeURIComponent(String(name)) });
      if (result.isError) throw new Error(result.text);
      return text(uri.href, result.text);
    },
  );
  server.registerResource(
    'memory',
    new ResourceTemplate('memory://memories/{id}', { list: undefined }),
    {
      title: 'Memory with its explanation',
      description: 'One memory with why it is where it is: score, sources, decisions (JSON).',
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      const { explain } = await sdk.explain({ id: Number(id) });
      return text(uri.href, JSON.stringify(explain, null, 2), 'application/json');
    },
  );
}
