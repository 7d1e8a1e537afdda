// add-turn and get-context: the conversation side of the memory.
import { Option, type Command } from 'commander';
import { withBackend } from '../backend.ts';
import { lower, memoryLine, turnLine } from '../format.ts';
import { count, dim, emit } from '../output.ts';
import { integer, time, upper } from '../parse.ts';
import type { GlobalOptions, RegisterCommand } from '../runtime.ts';

/** All of stdin as text: a turn too long for a command-line argument (the OS caps one at 128 KB). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function registerTurnCommands(program: Command, globals: () => GlobalOptions) {
  addTurn(program, globals);
  getContext(program, globals);
}

const addTurn: RegisterCommand = (program, globals) =>
  program
    .command('add-turn')
    .description(
      'store one conversation turn (and extract memories: facts from user turns, decisions and restated facts from assistant turns)',
    )
    .requiredOption('--session <id>', 'session id (registered on its first turn)')
    .addOption(new Option('--role <role>', 'who spoke').choices(['user', 'assistant']).makeOptionMandatory())
    .option('--name <speaker>', "speaker's name (as OpenAI's message `name`)")
    .requiredOption('--text <text>', 'what was said; - reads it from stdin (a long turn: up to 1,000,000 characters)')
    .option('--no-extract', 'store the turn without extracting memories')
    .option('--at <time>', 'when it was said (ISO-8601 or epoch ms; default now)', time)
    .addHelpText(
      'after',
      '\nExample:\n  sm add-turn --session s1 --role user --text "I like JRPGs and my name is Alex"',
    )
    .action(
      async (opts: {
        session: string;
        role: 'user' | 'assistant';
        name?: string;
        text: string;
        extract: boolean;
        at?: string;
      }) => {
        const options = globals();
        await withBackend(options, async ({ sdk }) => {
          const { addTurn } = await sdk.addTurn({
            input: {
              sessionId: opts.session,
              role: upper(opts.role)!,
              name: opts.name,
              text: opts.text === '-' ? await readStdin() : opts.text,
              autoExtract: opts.extract,
              at: opts.at,
            },
          });
          emit(options, addTurn, () =>
            [
              `turn ${addTurn.turn.id} stored in session ${addTurn.turn.sessionId}${addTurn.newSession ? ' (new session)' : ''} at ${addTurn.turn.at}`,
              ...addTurn.extracted.map((e) => `  ${lower(e.action)}: ${memoryLine(e.memory)}`),
            ].join('\n'),
          );
        });
      },
    );

const getContext: RegisterCommand = (program, globals) =>
  program
    .command('get-context')
    .description(
      'the context to hand a model before its next call: recent turns, and the facts, past turns and insight that matter, packed to a token budget',
    )
    .requiredOption('--session <id>', 'session id')
    .option('--query <text>', 'what the next turn is about (default: the latest user turn; "": the most recent memory)')
    .option(
      '--token-budget <n>',
      'size of the memory block in tokens (o200k_base), 50 to 32000 (default: config context.token_budget, 1000)',
      integer,
    )
    // Kept so that scripts written for earlier versions still run: --max-tokens is --token-budget, --k is ignored.
    .addOption(new Option('--max-tokens <n>').argParser(integer).hideHelp())
    .addOption(new Option('--k <n>').argParser(integer).hideHelp())
    .addHelpText(
      'after',
      '\nExample:\n  sm get-context --session s1 --query "where does Alex live" --token-budget 1000',
    )
    .action(async (opts: { session: string; query?: string; tokenBudget?: number; maxTokens?: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { context } = await sdk.context({
          sessionId: opts.session,
          query: opts.query,
          tokenBudget: opts.tokenBudget ?? opts.maxTokens,
        });
        // Sections with nothing in them are left out.
        const recent = context.shortTerm.length
          ? [`## Short-term (${count(context.shortTerm.length, 'turn')})`, ...context.shortTerm.map(turnLine), '']
          : [];
        const memory = context.markdown
          ? [
              context.markdown,
              '',
              dim(`(${context.tokensUsed} of ${context.tokenBudget} tokens, ${context.tokenizer})`),
            ]
          : ['(no memories yet)'];
        emit(options, context, () => [...recent, ...memory].join('\n'));
      });
    });
