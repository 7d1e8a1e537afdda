// mcp, tools: the memory tools for agents: an MCP server over stdio, and the same tools as
// function-calling definitions for OpenAI or Anthropic.
import { Option, type Command } from 'commander';
import { withBackend } from '../backend.ts';
import type { Runtime } from '../../services/runtime.ts';
import type { GlobalOptions } from '../runtime.ts';

async function startJobs(runtime: Runtime) {
  const [{ startWorker }, { jobHandlers }] = await Promise.all([
    import('../../jobs/worker.ts'),
    import('../../services/job-handlers.ts'),
  ]);
  return startWorker(runtime.store, jobHandlers(runtime), { concurrency: runtime.store.config.worker.concurrency });
}

export function registerMcpCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('mcp')
    .description(
      'serve the memory tools to an agent over MCP (stdio): on --db, or on a running server with --url; --user picks whose memory',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  sm mcp --user alice\n  sm --url http://127.0.0.1:8787/graphql --token "$SM_TOKEN" mcp\n\n' +
        'It reads MCP messages on stdin and answers on stdout until stdin closes; logs go to stderr.',
    )
    .action(async () => {
      const options = globals();
      // A long session: the young generation stays small, as the server's (bin/sm.js held it from the first line).
      (await import('../../young-generation.ts')).holdYoungGeneration();
      const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../mcp/server.ts'),
      ]);
      await withBackend(options, async (backend) => {
        // On the file itself (the admin) the tools work in one user's space, `default` unless --user says.
        const sdk = backend.mode === 'embedded' && !backend.space.userId ? backend.forUser('default') : backend.sdk;
        const server = createMcpServer(sdk);
        // A long session on the file runs its background work as it goes (LLM extraction, entity
        // recognition, consolidation, embeddings), as the service would; with --url the service does.
        const worker = backend.runtime ? await startJobs(backend.runtime) : null;
        const closed = new Promise<void>((resolve) => {
          process.stdin.once('end', resolve);
          process.stdin.once('close', resolve);
        });
        await server.connect(new StdioServerTransport());
        await closed;
        await server.close();
        await worker?.stop();
      });
    });

  program
    .command('tools')
    .description('print the memory tools as function-calling definitions (JSON), for OpenAI or Anthropic')
    .addOption(new Option('--format <format>', 'whose format').choices(['openai', 'anthropic']).default('openai'))
    .addHelpText('after', '\nExamples:\n  sm tools --format openai > tools.json\n  sm tools --format anthropic')
    .action(async (opts: { format: 'openai' | 'anthropic' }) => {
      const { toolDefinitions } = await import('../../../client/src/tools.ts');
      process.stdout.write(`${JSON.stringify(toolDefinitions(opts.format), null, 2)}\n`);
    });
}
