// sessions, session, consolidate.
import type { Command } from 'commander';
import { withBackend } from '../backend.ts';
import { turnLine } from '../format.ts';
import { count, emit, found, page, table } from '../output.ts';
import { integer } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

export function registerSessionCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('sessions')
    .description('sessions, most recently active first')
    .option('--limit <n>', 'page size', integer, 20)
    .option('--after <cursor>', 'continue after this cursor')
    .addHelpText('after', '\nExample:\n  sm sessions --limit 10')
    .action(async (opts: { limit: number; after?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { sessions } = await sdk.sessions({ first: opts.limit, after: opts.after });
        emit(options, page(sessions, 'sessions'), () => {
          const rows = sessions.edges.map((e) => e.node);
          if (rows.length === 0) return 'no sessions';
          return `${table(
            ['id', 'turns', 'first seen', 'last seen', 'consolidated'],
            rows.map((s) => [s.id, s.turnCount, s.firstSeenAt, s.lastSeenAt, s.consolidatedAt ?? 'no']),
          )}\n${rows.length} of ${sessions.totalCount}`;
        });
      });
    });

  program
    .command('session')
    .description('one session: first/last seen, turn count, consolidation, latest turns')
    .argument('<id>', 'session id')
    .option('--last <n>', 'how many of its latest turns to show', integer, 10)
    .addHelpText('after', '\nExample:\n  sm session s1 --last 5')
    .action(async (id: string, opts: { last: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const session = found((await sdk.session({ id, last: opts.last })).session, 'session', id);
        emit(options, session, () =>
          [
            `session ${session.id}: ${count(session.turnCount, 'turn')}, ${session.firstSeenAt} to ${session.lastSeenAt}`,
            `consolidated: ${session.consolidatedAt ?? 'not yet'}`,
            ...session.turns.edges.map((e) => `  ${turnLine(e.node)}`),
          ].join('\n'),
        );
      });
    });

  program
    .command('consolidate')
    .description('consolidate a finished session into facts now (idempotent)')
    .requiredOption('--session <id>', 'session id')
    .addHelpText('after', '\nExample:\n  sm consolidate --session s1')
    .action(async (opts: { session: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { consolidateSession: r } = await sdk.consolidateSession({ sessionId: opts.session });
        emit(options, r, () =>
          r.status === 'SKIPPED'
            ? `session ${r.sessionId}: skipped (${r.detail})`
            : `session ${r.sessionId}: ${count(r.turns, 'turn')} in ${count(r.pages, 'page')} (${r.detail}): ${r.created} created, ${r.merged} merged, ${r.superseded} superseded, ${r.unchanged} unchanged`,
        );
      });
    });
}
