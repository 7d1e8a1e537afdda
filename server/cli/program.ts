// The `sm` command tree. Commands live beside the domain they drive, in commands/.
import { Command } from 'commander';
import { registerMaintenanceCommands } from './commands/maintenance.ts';
import { registerMemoryCommands } from './commands/memories.ts';
import { registerTurnCommands } from './commands/turns.ts';
import type { GlobalOptions } from './runtime.ts';

export function buildProgram(): Command {
  const program = new Command('sm')
    .description('Symbiosis Memory: long-term memory for LLM assistants, over one SQLite file')
    .option('--db <path>', 'database file (env SM_DB; default ./data/symbiosis.db)')
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
  SM_NOW=2026-01-11T00:00:00Z sm explain --id 1

Environment: SM_DB (database path), SM_NOW (pin the clock: ISO-8601 or epoch ms),
SM_CONFIG__SECTION__KEY=value (config override, e.g. SM_CONFIG__GC__MODE=delete).`,
    );
  const globals = () => program.opts<GlobalOptions>();
  registerTurnCommands(program, globals);
  registerMemoryCommands(program, globals);
  registerMaintenanceCommands(program, globals);
  return program;
}
