// The `sm` command tree. Commands live beside the domain they drive, in commands/.
import { VERSION } from '../services/kernel.ts';
import { Command } from 'commander';
import { registerAccessCommands } from './commands/access.ts';
import { registerConfigCommands } from './commands/config.ts';
import { registerDataCommands } from './commands/data.ts';
import { registerEntityCommands } from './commands/entities.ts';
import { registerMaintenanceCommands } from './commands/maintenance.ts';
import { registerMcpCommands } from './commands/mcp.ts';
import { registerMemoryCommands } from './commands/memories.ts';
import { registerProfileCommands } from './commands/profile.ts';
import { registerMigrateCommand } from './commands/migrate.ts';
import { registerSearchCommands } from './commands/search.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerSessionCommands } from './commands/sessions.ts';
import { registerTurnCommands } from './commands/turns.ts';
import type { GlobalOptions } from './runtime.ts';

export function buildProgram(): Command {
  const program = new Command('sm')
    .description(
      'Symbiosis Memory: long-term memory for LLM assistants, over one SQLite file (or Postgres: SM_DATABASE_URL)',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .option(
      '--db <path>',
      'SQLite database file (env SM_DB; default symbiosis.db in the user data folder, e.g. ~/.local/share/symbiosis-memory/); wins over SM_DATABASE_URL',
    )
    .option('--url <url>', 'talk to a running server instead, e.g. http://127.0.0.1:8787/graphql (env SM_URL)')
    .option('--token <token>', 'API token for --url (env SM_API_TOKEN)')
    .option('--user <id>', 'whose memory: a user id (env SM_USER; default: the token\'s user, else "default")')
    .option(
      '--agent <id>',
      'an agent of that user: reads see its own memories plus the shared ones, writes are its own (env SM_AGENT)',
    )
    .option('--json', 'machine-readable output (field names as in the GraphQL API)')
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors throw instead of exiting, so main maps them to exit code 2.
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  sm add-turn --session s1 --role user --text "I like JRPGs and my name is Alex"
  sm get-context --session s1 --json
  sm search "where does Alex live"
  SM_NOW=2026-01-11T00:00:00Z sm explain --id 1
  sm --url http://127.0.0.1:8787/graphql stats

Environment: SM_DB (SQLite file), SM_DATABASE_URL (Postgres instead: postgres://user:pw@host:port/db,
pglite: or pglite:<dir>; --db wins over it, SM_DB and SM_DATABASE_URL together are refused;
\`sm migrate\` copies a file into it), SM_URL / SM_API_TOKEN (remote server), SM_USER / SM_AGENT
(memory space), SM_NOW (pin the clock: ISO-8601 or epoch ms), SM_CONFIG__SECTION__KEY=value
(config override, e.g. SM_CONFIG__GC__MODE=delete). Exit codes: 0 ok, 1 runtime error, 2 bad
usage or bad input.`,
    );
  const globals = () => program.opts<GlobalOptions>();
  registerTurnCommands(program, globals);
  registerMemoryCommands(program, globals);
  registerProfileCommands(program, globals);
  registerSearchCommands(program, globals);
  registerSessionCommands(program, globals);
  registerEntityCommands(program, globals);
  registerMaintenanceCommands(program, globals);
  registerConfigCommands(program, globals);
  registerDataCommands(program, globals);
  registerAccessCommands(program, globals);
  registerMcpCommands(program, globals);
  registerServeCommand(program, globals);
  registerMigrateCommand(program, globals);
  return program;
}
