// serve: the GraphQL server on this database (what `npm start` runs): --db, SM_DATABASE_URL or SM_DB.
import type { Command } from 'commander';
import { integer } from '../parse.ts';
import { clockFromEnv, type GlobalOptions } from '../runtime.ts';

export function registerServeCommand(program: Command, globals: () => GlobalOptions) {
  program
    .command('serve')
    .description('serve the GraphQL API (GraphiQL, graphql-ws, REST routes) on this database')
    .option(
      '--host <host>',
      'interface (default: config server.host, 127.0.0.1); anything but loopback needs SM_API_TOKEN',
    )
    .option('--port <port>', 'port (default: config server.port, 8787)', integer)
    .option('--no-scheduler', 'do not run the nightly maintenance schedule')
    .option('--no-jobs', 'do not run background jobs (nor the schedule)')
    .addHelpText('after', '\nExamples:\n  sm serve\n  SM_API_TOKEN=secret sm serve --host 0.0.0.0 --port 8787')
    .action(async (opts: { host?: string; port?: number; scheduler: boolean; jobs: boolean }) => {
      const options = globals();
      // Loaded here only: the HTTP stack is the heaviest part and no other command needs it.
      const [{ serve }, { chooseStore, describeStore }] = await Promise.all([
        import('../../http/serve.ts'),
        import('../../storage/configured-store.ts'),
      ]);
      const database = chooseStore({ db: options.db });
      const { url } = await serve({
        database,
        clock: clockFromEnv(),
        host: opts.host ?? (process.env.SM_HOST || undefined),
        port: opts.port,
        token: process.env.SM_API_TOKEN,
        jobs: opts.jobs,
        scheduler: opts.scheduler,
      });
      // A terminal got the banner; a script or supervisor gets one line it can read, whatever the log level.
      if (!process.stdout.isTTY)
        process.stderr.write(`Symbiosis Memory on ${url}, database ${describeStore(database)}\n`);
      await new Promise(() => {}); // serves until a signal
    });
}
