// remember, list, show, update, forget, confirm, correct, explain: the memory side.
import { MEMORY_SORTS } from '../../services/kernel.ts';
import { Option, type Command } from 'commander';
import { MEMORY_KINDS, MEMORY_LAYERS, MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import { withBackend } from '../backend.ts';
import { decisionLine, lower, memoryDetails, memoryLine, memoryTable, turnLine } from '../format.ts';
import { count, emit, fixed, found, page } from '../output.ts';
import { integer, list, number, upper } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

type ListOptions = {
  layer?: string;
  kind?: string;
  status?: string;
  tag?: string;
  sort: string;
  limit: number;
  after?: string;
  q?: string;
};

export function registerMemoryCommands(program: Command, globals: () => GlobalOptions) {
  rememberCommand(program, globals);
  listCommand(program, globals);
  showCommand(program, globals);
  updateCommand(program, globals);
  forgetCommand(program, globals);
  confirmCommand(program, globals);
  correctCommand(program, globals);
  explainCommand(program, globals);
}

function rememberCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('remember')
    .description('save a fact explicitly (merges into an identical one)')
    .requiredOption('--text <text>', 'the fact')
    .option('--importance <0..1>', 'importance; 1 adds w_importance to the score', number, 0)
    .option('--tags <a,b>', 'comma-separated tags', list, [])
    .addHelpText('after', '\nExample:\n  sm remember --text "User is allergic to peanuts" --importance 1 --tags health')
    .action(async (opts: { text: string; importance: number; tags: string[] }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { remember } = await sdk.remember({
          input: { content: opts.text, importance: opts.importance, tags: opts.tags },
        });
        emit(
          options,
          remember,
          () => `${lower(remember.action)} ${memoryLine(remember.memory)} (hits ${remember.memory.hits})`,
        );
      });
    });
}

function listCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('list')
    .description('list memories, filtered and sorted, a page at a time')
    .addOption(new Option('--layer <layer>').choices(MEMORY_LAYERS))
    .addOption(new Option('--kind <kind>').choices(MEMORY_KINDS))
    .addOption(new Option('--status <status>', 'default: active').choices(MEMORY_STATUSES))
    .option('--tag <tag>', 'only memories with this tag')
    .addOption(new Option('--sort <order>').choices(MEMORY_SORTS).default('score'))
    .option('--limit <n>', 'page size', integer, 50)
    .option('--after <cursor>', 'continue after this cursor (endCursor of the previous page)')
    .option('--q <text>', 'full-text filter (every word must match)')
    .addHelpText(
      'after',
      '\nExamples:\n  sm list --layer mid --sort score --limit 10\n  sm list --status archived --q lisbon --json',
    )
    .action(async (opts: ListOptions) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { memories } = await sdk.memories({
          layer: upper(opts.layer) as never,
          kind: upper(opts.kind) as never,
          status: upper(opts.status) as never,
          tag: opts.tag,
          q: opts.q,
          sort: upper(opts.sort) as never,
          first: opts.limit,
          after: opts.after,
        });
        const result = page(memories, 'memories');
        emit(options, result, () => {
          const rows = memories.edges.map((e) => e.node);
          if (rows.length === 0) return 'no memories';
          const more = memories.pageInfo.hasNextPage ? ` (more: --after ${memories.pageInfo.endCursor})` : '';
          return `${memoryTable(rows)}\n${rows.length} of ${memories.totalCount}${more}`;
        });
      });
    });
}

function showCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('show')
    .description('one memory with its sources, entities, supersession links and decisions')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm show --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const memory = found(await sdk.memory({ id: opts.id }).then((r) => r.memory), 'memory', opts.id);
        emit(options, memory, () =>
          [
            memoryDetails(memory),
            ...memory.sources.map(
              (s) => `  from turn ${s.turn.id} (${lower(s.reason)}${s.rule ? `, ${s.rule}` : ''}): ${turnLine(s.turn)}`,
            ),
            ...(memory.entities.length
              ? [`  entities: ${memory.entities.map((e) => `${e.name} (${e.type})`).join(', ')}`]
              : []),
            ...memory.supersedes.map((m) => `  supersedes ${memoryLine(m)}`),
            ...memory.supersededBy.map((m) => `  superseded by ${memoryLine(m)}`),
            'decisions (newest first):',
            ...memory.decisions.map(decisionLine),
          ].join('\n'),
        );
      });
    });
}

function updateCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('update')
    .description('change a memory: content, tags, importance, or status (archive / restore)')
    .requiredOption('--id <id>', 'memory id', integer)
    .option('--text <text>', 'new content')
    .option('--tags <a,b>', 'replace the tags', list)
    .option('--importance <0..1>', 'new importance', number)
    .addOption(new Option('--status <status>').choices(MEMORY_STATUSES))
    .addHelpText('after', '\nExamples:\n  sm update --id 12 --tags travel,plans\n  sm update --id 12 --status archived')
    .action(async (opts: { id: number; text?: string; tags?: string[]; importance?: number; status?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { updateMemory } = await sdk.updateMemory({
          id: opts.id,
          input: {
            content: opts.text,
            tags: opts.tags,
            importance: opts.importance,
            status: upper(opts.status) as never,
          },
        });
        emit(options, updateMemory, () => memoryDetails(updateMemory));
      });
    });
}

function forgetCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('forget')
    .description('hard-delete a memory by id, or every memory and turn containing a text')
    .option('--id <id>', 'memory id', integer)
    .option('--text <text>', 'delete every memory and turn whose text contains this (case-insensitive, whole words)')
    .addHelpText('after', '\nExamples:\n  sm forget --id 12\n  sm forget --text "alice@example.com"')
    .action(async (opts: { id?: number; text?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { forget } = await sdk.forget({ id: opts.id, text: opts.text });
        emit(
          options,
          forget,
          () =>
            `forgot ${count(forget.deleted, 'memory', 'memories')}${forget.turnIds.length ? ` and ${count(forget.turnIds.length, 'turn')}` : ''}`,
        );
      });
    });
}

function confirmCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('confirm')
    .description('protect a memory: full confidence, never decays, exempt from cleanup')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm confirm --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { confirmMemory } = await sdk.confirmMemory({ id: opts.id });
        emit(options, confirmMemory, () => `confirmed ${memoryDetails(confirmMemory)}`);
      });
    });
}

function correctCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('correct')
    .description('replace a fact: the old one is archived and superseded by the new one')
    .requiredOption('--id <id>', 'memory id', integer)
    .requiredOption('--text <text>', 'the corrected fact')
    .addHelpText('after', '\nExample:\n  sm correct --id 12 --text "User lives in Porto"')
    .action(async (opts: { id: number; text: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { correctMemory } = await sdk.correctMemory({ id: opts.id, content: opts.text });
        emit(
          options,
          correctMemory,
          () => `${memoryLine(correctMemory.memory)}\n  supersedes ${memoryLine(correctMemory.previous)} (archived)`,
        );
      });
    });
}

function explainCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('explain')
    .description('why a memory is where it is: score terms, rules matched, last decisions')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm explain --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { explain: e } = await sdk.explain({ id: opts.id });
        emit(options, e, () => {
          const lines = [
            `memory #${e.memoryId} (${lower(e.status)})${e.memory ? `: ${e.memory.content}` : ''}`,
            `score ${fixed(e.score, 6)} = frequency ${fixed(e.scoreTerms.frequency, 6)} + recency ${fixed(e.scoreTerms.recency, 6)} + importance ${fixed(e.scoreTerms.importance, 6)}`,
            `hits ${e.hits} · age ${fixed(e.ageDays, 2)} d · seen ${fixed(e.daysSinceSeen, 2)} d ago · confidence ${fixed(e.confidence)} · decay rate ${e.decayRate}${e.protected ? ' (protected)' : ''}`,
          ];
          if (e.rules.length) lines.push('rules:', ...e.rules.map((r) => `  - ${r}`));
          if (e.supersedes.length) lines.push(`supersedes: ${e.supersedes.map(memoryLine).join(', ')}`);
          if (e.supersededBy.length) lines.push(`superseded by: ${e.supersededBy.map(memoryLine).join(', ')}`);
          lines.push('decisions (newest first):', ...e.decisions.map(decisionLine));
          return lines.join('\n');
        });
      });
    });
}
