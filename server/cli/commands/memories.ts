// remember, list, forget, explain: the memory side.
import { Option, type Command } from 'commander';
import { MEMORY_KINDS, MEMORY_LAYERS, MEMORY_STATUSES } from '../../../drizzle/schema.ts';
import { explain } from '../../core/explain.ts';
import { forget } from '../../core/forget.ts';
import { remember } from '../../core/memories.ts';
import { listMemories, MEMORY_SORTS, type ListMemoriesInput } from '../../core/memory-list.ts';
import { explanationJson, memoryJson } from '../json.ts';
import { emit, fixed, table } from '../output.ts';
import { integer, list, number } from '../parse.ts';
import { withStore, type GlobalOptions } from '../runtime.ts';

export function registerMemoryCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('remember')
    .description('save a fact explicitly (merges into an identical one)')
    .requiredOption('--text <text>', 'the fact')
    .option('--importance <0..1>', 'importance; 1 boosts the score by w_importance', number, 0)
    .option('--tags <a,b>', 'comma-separated tags', list, [])
    .addHelpText('after', '\nExample:\n  sm remember --text "User is allergic to peanuts" --importance 1 --tags health')
    .action(async (opts: { text: string; importance: number; tags: string[] }) => {
      const options = globals();
      await withStore(options, (store) => {
        const { action, memory } = remember(store, { content: opts.text, importance: opts.importance, tags: opts.tags });
        emit(options, { action, memory: memoryJson(memory) }, () => `${action} memory #${memory.id} (hits ${memory.hits}): ${memory.content}`);
      });
    });

  program
    .command('list')
    .description('list memories, filtered and sorted')
    .addOption(new Option('--layer <layer>').choices(MEMORY_LAYERS))
    .addOption(new Option('--kind <kind>').choices(MEMORY_KINDS))
    .addOption(new Option('--status <status>', 'default: active').choices(MEMORY_STATUSES))
    .option('--tag <tag>', 'only memories with this tag')
    .addOption(new Option('--sort <order>').choices(MEMORY_SORTS).default('score'))
    .option('--limit <n>', 'at most this many', integer, 50)
    .option('--q <text>', 'full-text filter (every word must match)')
    .addHelpText('after', '\nExample:\n  sm list --layer mid --sort score --limit 10')
    .action(async (opts: ListMemoriesInput) => {
      const options = globals();
      await withStore(options, (store) => {
        const { rows, total } = listMemories(store, opts);
        emit(options, { total, memories: rows.map(memoryJson) }, () =>
          rows.length === 0
            ? 'no memories'
            : `${table(
                ['id', 'layer', 'kind', 'score', 'hits', 'tags', 'content'],
                rows.map((m) => [m.id, m.layer, m.kind, fixed(m.score), m.hits, m.tags.join(','), m.content]),
              )}\n${rows.length} of ${total}`,
        );
      });
    });

  program
    .command('forget')
    .description('hard-delete a memory by id, or every memory and turn containing a text')
    .option('--id <id>', 'memory id', integer)
    .option('--text <text>', 'delete every memory and turn whose text contains this (case-insensitive, whole words)')
    .addHelpText('after', '\nExamples:\n  sm forget --id 12\n  sm forget --text "alice@example.com"')
    .action(async (opts: { id?: number; text?: string }) => {
      const options = globals();
      await withStore(options, (store) => {
        const result = forget(store, { id: opts.id, text: opts.text });
        emit(options, { deleted: result.memoryIds.length, ...result }, () =>
          `forgot ${result.memoryIds.length} memories${result.turnIds.length ? ` and ${result.turnIds.length} turns` : ''}`,
        );
      });
    });

  program
    .command('explain')
    .description('why a memory is where it is: score terms, rules matched, last decisions')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm explain --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withStore(options, (store) => {
        const e = explain(store, opts.id);
        emit(options, explanationJson(e), () => {
          const lines = [
            `memory #${e.memoryId} (${e.status})${e.memory ? `: ${e.memory.content}` : ''}`,
            `score ${fixed(e.score, 6)} = frequency ${fixed(e.scoreTerms.frequency, 6)} + recency ${fixed(e.scoreTerms.recency, 6)} + importance ${fixed(e.scoreTerms.importance, 6)}`,
            `hits ${e.hits} · age ${fixed(e.ageDays, 2)} d · seen ${fixed(e.daysSinceSeen, 2)} d ago · confidence ${fixed(e.confidence)} · decay rate ${e.decayRate}${e.protected ? ' (protected)' : ''}`,
          ];
          if (e.rules.length) lines.push('rules:', ...e.rules.map((r) => `  - ${r}`));
          if (e.supersedes.length) lines.push(`supersedes: ${e.supersedes.map((id) => `#${id}`).join(', ')}`);
          if (e.supersededBy.length) lines.push(`superseded by: ${e.supersededBy.map((id) => `#${id}`).join(', ')}`);
          lines.push('decisions (newest first):', ...e.decisions.map((d) => `  ${new Date(d.at).toISOString()} ${d.action} ${JSON.stringify(d.detail)}`));
          return lines.join('\n');
        });
      });
    });
}
