// add-turn and get-context: the conversation side of the memory.
import { Option, type Command } from 'commander';
import { getContext } from '../../core/context.ts';
import { ingestTurn } from '../../ingest.ts';
import { contextJson, extractedJson, iso, turnJson } from '../json.ts';
import { emit } from '../output.ts';
import { integer, time } from '../parse.ts';
import { withRuntime, withStore, type GlobalOptions } from '../runtime.ts';

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
    .action(async (opts: { session: string; role: 'user' | 'assistant'; name?: string; text: string; extract: boolean; at?: number }) => {
      const options = globals();
      await withRuntime(options, async (runtime) => {
        const { turn, extracted } = await ingestTurn(runtime, {
          sessionId: opts.session,
          role: opts.role,
          name: opts.name,
          text: opts.text,
          autoExtract: opts.extract,
          at: opts.at,
        });
        emit(options, { turn: turnJson(turn), extracted: extracted.map(extractedJson) }, () =>
          [`turn ${turn.id} stored in session ${turn.sessionId} at ${iso(turn.at)}`, ...extracted.map((e) => `  ${e.action}: #${e.memory.id} ${e.memory.content}`)].join('\n'),
        );
      });
    });

  program
    .command('get-context')
    .description('the context to hand a model before its next call: short-term turns and top memories')
    .requiredOption('--session <id>', 'session id')
    .option('--k <n>', 'how many memories per layer (default: context.k, 20)', integer)
    .addHelpText('after', '\nExample:\n  sm get-context --session s1 --k 20')
    .action(async (opts: { session: string; k?: number }) => {
      const options = globals();
      await withStore(options, (store) => {
        const context = getContext(store, { sessionId: opts.session, k: opts.k });
        emit(options, contextJson(context), () => {
          const turns = context.shortTerm.map((t) => `${t.name ?? t.role}: ${t.text}`);
          return [`## Short-term (${context.shortTerm.length} turns)`, ...turns, '', context.markdown || '(no memories yet)'].join('\n');
        });
      });
    });
}
