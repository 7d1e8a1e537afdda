// entities, entity: what the memory knows about people, places and things.
import type { Command } from 'commander';
import { withBackend } from '../backend.ts';
import { memoryLine, turnLine } from '../format.ts';
import { count, emit, page, table } from '../output.ts';
import { integer } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

export function registerEntityCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('entities')
    .description('named entities, most mentioned first')
    .option('--type <type>', 'person, location, organization, mention, hashtag, email, url, date…')
    .option('--q <text>', 'name or alias contains')
    .option('--limit <n>', 'page size', integer, 50)
    .option('--after <cursor>', 'continue after this cursor')
    .addHelpText('after', '\nExample:\n  sm entities --type person')
    .action(async (opts: { type?: string; q?: string; limit: number; after?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { entities } = await sdk.entities({ type: opts.type, q: opts.q, first: opts.limit, after: opts.after });
        emit(options, page(entities, 'entities'), () => {
          const rows = entities.edges.map((e) => e.node);
          if (rows.length === 0) return 'no entities';
          return `${table(
            ['id', 'type', 'mentions', 'name', 'aliases'],
            rows.map((e) => [e.id, e.type, e.mentionCount, e.name, e.aliases.join(', ')]),
          )}\n${rows.length} of ${entities.totalCount}`;
        });
      });
    });

  program
    .command('entity')
    .description('everything known about an entity: linked facts and recent turns')
    .argument('<name>', 'name or alias (or the numeric id with --id)')
    .option('--id', 'the argument is the entity id')
    .option('--limit <n>', 'facts and turns to show', integer, 20)
    .addHelpText('after', '\nExample:\n  sm entity "Alice Johnson"')
    .action(async (name: string, opts: { id?: boolean; limit: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { entity } = await sdk.entity({ ...(opts.id ? { id: integer(name) } : { name }), first: opts.limit });
        emit(options, entity, () =>
          [
            `${entity.name} (${entity.type}), mentioned ${count(entity.mentionCount, 'time')}${entity.aliases.length ? `; also ${entity.aliases.join(', ')}` : ''}`,
            ...(entity.summary ? [entity.summary] : []),
            `facts (${entity.memories.totalCount}):`,
            ...entity.memories.edges.map((e) => `  ${memoryLine(e.node)}`),
            `turns (${entity.turns.totalCount}):`,
            ...entity.turns.edges.map((e) => `  ${turnLine(e.node)}`),
          ].join('\n'),
        );
      });
    });
}
