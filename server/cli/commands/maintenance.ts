// gc: rescore, promote and clean up.
import type { Command } from 'commander';
import { runGc } from '../../core/gc.ts';
import { iso } from '../json.ts';
import { emit, fixed } from '../output.ts';
import { withStore, type GlobalOptions } from '../runtime.ts';

export function registerMaintenanceCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('gc')
    .description('recompute scores, promote mid->long, archive (or delete) weak and old mid memories')
    .addHelpText('after', '\nExample:\n  sm gc --json')
    .action(async () => {
      const options = globals();
      await withStore(options, (store) => {
        const report = runGc(store);
        emit(options, { ...report, at: iso(report.at) }, () =>
          [
            `scored ${report.scored} · promoted ${report.promoted} · ${report.mode === 'archive' ? `archived ${report.archived}` : `deleted ${report.deleted}`} · purged ${report.purged}`,
            `  low score ${report.byReason.low_score} · expired ${report.byReason.expired} · over capacity ${report.byReason.over_capacity}`,
            `  average score ${fixed(report.averageScore)} · average age ${fixed(report.averageAgeDays, 1)} days`,
          ].join('\n'),
        );
      });
    });
}
