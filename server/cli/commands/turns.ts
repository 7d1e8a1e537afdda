// add-turn and get-context: the conversation side of the memory.
import { Option, type Command } from 'commander';
import { withBackend } from '../backend.ts';
import { lower, memoryLine, turnLine } from '../format.ts';
import { count, emit } from '../output.ts';
import { integer, time, upper } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

export function registerTurnCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('add-turn')
    .description('store one conversation turn (and extract memories from user turns)')
    .requiredOption('--session <id>', 'session id (registered on its first turn)')
    .addOption(new Option('--role <role>', 'who spoke').choices(['user', 'assistant']).makeOptionMandatory())
    .option('--name <speaker>', "speaker's name (as OpenAI's message `name`)")
    .requiredOption('--text <text>', 'what was said')
    .option('--no-extract', 'store the turn without extracting memories')
    .option('--at <time>', 'when it was said (ISO-8601 or epoch ms; default now)', time)
    .addHelpText('after', '\nExample:\n  sm add-turn --session s1 --role user --text "I like JRPGs and my name is Alex"')
    .action(async (opts: { session: string; role: 'user' | 'assistant'; name?: string; text: string; extract: boolean; at?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { addTurn } = await sdk.addTurn({
          input: { sessionId: opts.session, role: upper(opts.role)!, name: opts.name, text: opts.text, autoExtract: opts.extract, at: opts.at },
        });
        emit(options, addTurn, () =>
          [
            `turn ${addTurn.turn.id} stored in session ${addTurn.turn.sessionId}${addTurn.newSession ? ' (new session)' : ''} at ${addTurn.turn.at}`,
            ...addTurn.extracted.map((e) => `  ${lower(e.action)}: ${memoryLine(e.memory)}`),
          ].join('\n'),
        );
      });
    });

  program
    .command('get-context')
    .description('the context to hand a model before its next call: recent turns, relevant memories, a markdown block')
    .requiredOption('--session <id>', 'session id')
    .option('--k <n>', 'memories per layer (default: config context.k)', integer)
    .option('--query <text>', 'what the next turn is about (default: the latest user turn)')
    .option('--max-tokens <n>', 'token budget for the markdown block (lower-priority lines are left out)', integer)
    .addHelpText('after', '\nExample:\n  sm get-context --session s1 --k 20')
    .action(async (opts: { session: string; k?: number; query?: string; maxTokens?: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { context } = await sdk.context({ sessionId: opts.session, k: opts.k, query: opts.query, maxTokens: opts.maxTokens });
        // Sections with nothing in them are left out.
        const recent = context.shortTerm.length ? [`## Short-term (${count(context.shortTerm.length, 'turn')})`, ...context.shortTerm.map(turnLine), ''] : [];
        emit(options, context, () => [...recent, context.markdown || '(no memories yet)'].join('\n'));
      });
    });
}
