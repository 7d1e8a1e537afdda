// search: hybrid retrieval over facts, reflections and turns.
import { SEARCH_KINDS } from '../../services/kernel.ts';
import { Option, type Command } from 'commander';
import { MEMORY_STATUSES } from '../../../drizzle/vocabulary.ts';
import { withBackend } from '../backend.ts';
import { emit, fixed, table } from '../output.ts';
import { integer, list, listOf, time, upper } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

export function registerSearchCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('search')
    .description('hybrid search (full text, entities, vectors when configured), fused by rank')
    .argument('<query>', 'what to look for')
    .option('--kinds <list>', `comma-separated: ${SEARCH_KINDS.join(', ')} (default: all)`, listOf(SEARCH_KINDS))
    .option('--limit <n>', 'at most this many hits', integer, 10)
    .option('--exclude-session <id>', 'leave this session out')
    .option('--sessions <list>', 'only these sessions', list)
    .option('--from <time>', 'only after this time', time)
    .option('--to <time>', 'only before this time', time)
    .option('--tags <list>', 'only memories with these tags', list)
    .option('--speakers <list>', 'only turns by these speakers', list)
    .addOption(new Option('--status <status>', 'memory status').choices(MEMORY_STATUSES).default('active'))
    .addHelpText(
      'after',
      '\nExamples:\n  sm search "where does Alex live" --limit 5\n  sm search "pottery" --kinds turn --json',
    )
    .action(
      async (
        query: string,
        opts: {
          kinds?: string[];
          limit: number;
          excludeSession?: string;
          sessions?: string[];
          from?: string;
          to?: string;
          tags?: string[];
          speakers?: string[];
          status: string;
        },
      ) => {
        const options = globals();
        await withBackend(options, async ({ sdk }) => {
          const { search } = await sdk.search({
            query,
            kinds: opts.kinds?.map((k) => upper(k)) as never,
            limit: opts.limit,
            excludeSessionId: opts.excludeSession,
            sessionIds: opts.sessions,
            from: opts.from,
            to: opts.to,
            tags: opts.tags,
            speakers: opts.speakers,
            status: upper(opts.status) as never,
          });
          emit(options, search, () =>
            search.length === 0
              ? 'no hits'
              : table(
                  ['score', 'kind', 'id', 'signals', 'text'],
                  search.map((hit) => [
                    fixed(hit.score, 4),
                    hit.kind.toLowerCase(),
                    hit.memory?.id ?? hit.turn?.id ?? '',
                    hit.signals.map((s) => `${s.signal.toLowerCase()}#${s.rank}`).join(' '),
                    hit.memory?.content ??
                      (hit.turn ? `${hit.turn.name ?? hit.turn.role.toLowerCase()}: ${hit.turn.text}` : ''),
                  ]),
                  80,
                ),
          );
        });
      },
    );
}
