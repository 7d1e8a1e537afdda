// MCP over Streamable HTTP at /mcp on the running service, stateless: each request gets a server
// bound to the space its token reaches (the admin names one with ?user_id=, else `default`), with
// the same auth as the API (the access guard ran first). The tools run the schema in process.
import { spaceFor } from '../services/tokens.ts';
import type { Plugin } from 'graphql-yoga';
import { getSdk } from '../../client/src/generated/sdk.ts';
import { withSpace } from '../../client/src/index.ts';
import type { ChangeFeed } from '../graphql/builder.ts';
import { localRequester } from '../graphql/local-requester.ts';
import type { Runtime } from '../services/runtime.ts';
import { accessOf } from './auth.ts';

export const MCP_PATH = '/mcp';

let loading:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        typeof import('../mcp/server.ts'),
      ]
    >
  | undefined;
/** The MCP SDK and the tools (about 20 MB of memory) load with the first /mcp request: a server no agent asks over MCP never holds them. */
const loadMcp = () =>
  (loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../mcp/server.ts'),
  ]));

export function mcpRoute(options: {
  runtime: Runtime;
  changes: ChangeFeed;
  bodyLimit: number;
  onError: (error: unknown) => Response;
}): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      if (url.pathname !== MCP_PATH) return;
      try {
        const access = accessOf(request);
        const space = spaceFor(
          access,
          { userId: url.searchParams.get('user_id'), agentId: url.searchParams.get('agent_id') },
          'read',
        );
        const sdk = getSdk(
          withSpace(localRequester(options.runtime, access, options.changes), {
            userId: space.userId,
            agentId: space.agentId ?? undefined,
          }),
        );
        const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
        const server = createMcpServer(sdk);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
          maxRequestBodySize: options.bodyLimit,
        });
        await server.connect(transport);
        const response = await transport.handleRequest(request);
        // Stateless: the JSON answer is complete, so this request's server goes with it.
        await server.close();
        endResponse(response);
      } catch (error) {
        endResponse(options.onError(error));
      }
    },
  };
}
