// migrate: copies a SQLite file into Postgres (server/storage/copy-sqlite.ts does the copy). A
// target that already holds rows is refused unless --replace says to empty it: the copy keeps
// the file's ids, which rows already there could collide with or be mixed up with.
import { InvalidArgumentError, type Command } from 'commander';
import type { CopyReport } from '../../storage/copy-sqlite.ts';
import { count, emit } from '../output.ts';
import { integer } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

function positive(value: string): number {
  const n = integer(value);
  if (n < 1) throw new InvalidArgumentError('expected at least 1');
  return n;
}

/** A progress bar on stderr while rows are copied, only where someone watches (a terminal, not --json). */
async function progressBar(quiet: boolean) {
  if (quiet || !process.stderr.isTTY)
    return { start: (_total: number) => {}, update: (_copied: number, _table: string) => {}, stop: () => {} };
  // The module's own object: the CLI bundle gives a CommonJS package's exports as its default only.
  const { SingleBar } = (await import('cli-progress')).default;
  const bar = new SingleBar({
    format: 'copying [{bar}] {percentage}% {value}/{total} rows | {table}',
    stream: process.stderr,
    hideCursor: true,
  });
  return {
    start: (total: number) => bar.start(total, 0, { table: '' }),
    update: (copied: number, table: string) => bar.update(copied, { table }),
    stop: () => bar.stop(),
  };
}

function describe(r: CopyReport): string {
  const tables = r.tables.map((t) => `  ${t.table.padEnd(16)} ${t.rows}`).join('\n');
  const upgrade = r.upgradeSource
    ? r.dryRun
      ? `\nthe file's schema is older than this release's: it would be upgraded first, as any sm command does`
      : '\nthe file was upgraded to this release first'
    : '';
  if (r.dryRun) {
    const target =
      r.targetRows === 0
        ? 'the target is empty: the copy would go ahead'
        : `the target already holds ${count(r.targetRows ?? 0, 'row')}: the copy would be refused without --replace (which deletes them first)`;
    return `dry run, nothing written: would copy ${count(r.rows, 'row')} from ${r.from} to ${r.to}\n${tables}\n${target}${upgrade}`;
  }
  return (
    `copied ${count(r.rows, 'row')} from ${r.from} to ${r.to} in ${(r.ms / 1000).toFixed(1)} s${r.replaced ? ` (after deleting the ${r.targetRows} rows it held)` : ''}\n` +
    `${tables}\ncounts verified: every table has as many rows as in the file${upgrade}`
  );
}

export function registerMigrateCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('migrate')
    .description('copy a SQLite database into Postgres (ids kept, counts verified); then run with SM_DATABASE_URL')
    .requiredOption(
      '--from <path>',
      'the SQLite database file to copy (left unchanged; a server may keep running on it)',
    )
    .requiredOption('--to <url>', 'the Postgres database: postgres://user:password@host:port/database, pglite:<dir>')
    .option('--dry-run', 'read and count only: say what would be copied, write nothing')
    .option('--replace', 'delete what the target holds first (without it, a target with rows is refused)')
    .option('--batch <rows>', 'rows per insert (default 1000)', positive)
    .addHelpText(
      'after',
      '\nExamples:\n  sm migrate --from ~/.local/share/symbiosis-memory/symbiosis.db --to postgres://sm@localhost/sm --dry-run\n' +
        '  sm migrate --from symbiosis.db --to "$SM_DATABASE_URL"\n\n' +
        "The copy is one transaction: if it fails, or a table's count differs after copying (exit 1,\n" +
        'naming the table), the target keeps what it had. Stop servers on the target first.',
    )
    .action(async (opts: { from: string; to: string; dryRun?: boolean; replace?: boolean; batch?: number }) => {
      const options = globals();
      const [{ copySqliteToPostgres }, bar] = await Promise.all([
        import('../../storage/copy-sqlite.ts'),
        progressBar(Boolean(options.json)),
      ]);
      let report: CopyReport;
      try {
        report = await copySqliteToPostgres({ ...opts, onStart: bar.start, onProgress: bar.update });
      } finally {
        bar.stop();
      }
      emit(options, report, () => describe(report));
    });
}
