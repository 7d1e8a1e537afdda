// The server side of bench:load: `sm serve` as a child process, its memory and CPU from /proc,
// a keep-alive GraphQL client, and the job queue read from the file beside the server.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type SmServe, startSmServe } from '../scripts/sm-serve.ts';
import { round } from './stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Resident memory of a process now and its peak (Linux /proc); null elsewhere. */
export function memoryOf(pid: number): { rssMB: number; peakMB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rssMB: round(kb('VmRSS') / 1024, 1), peakMB: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return null;
  }
}

/** CPU seconds a process has used, its main thread's and all threads' (Linux /proc, 100 ticks a second); null elsewhere. */
export function cpuOf(pid: number): { main: number; all: number } | null {
  const seconds = (stat: string) => {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  try {
    return {
      main: seconds(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
      all: seconds(readFileSync(`/proc/${pid}/stat`, 'utf8')),
    };
  } catch {
    return null;
  }
}

/** Whether bin/sm.js runs the bundle (what users run) or tsx (which holds memory of its own): its rule, bundle newer than every source. */
export function runsBundle(): boolean {
  const bundle = join(ROOT, 'dist', 'cli', 'sm.mjs');
  if (process.env.SM_NO_BUNDLE === '1' || !existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  return ['server', 'drizzle', 'client/src'].every((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true }).every(
      (e) => !e.isFile() || statSync(join(e.parentPath, e.name)).mtimeMs <= built,
    ),
  );
}

export type Server = SmServe;

/** `sm serve` on `db` (null: the database `env` names, SM_DATABASE_URL), port 0, without the scheduler. */
export function startServer(
  db: string | null,
  env: Record<string, string>,
  nodeArgs: string[],
  args: string[] = [],
): Promise<Server> {
  return startSmServe({ db, env, nodeArgs, args: ['--no-scheduler', ...args] });
}

export type Reply = {
  status: number;
  retryAfter: number | null;
  body: { data?: Record<string, any>; errors?: { message: string }[] } | null;
};

/** GraphQL over keep-alive HTTP (node:http: fetch costs this process more CPU per request). */
export function graphqlClient(url: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  const post = (query: string, variables: Record<string, unknown>) =>
    new Promise<Reply>((resolve, reject) => {
      const body = JSON.stringify({ query, variables });
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            const retry = res.headers['retry-after'];
            let parsed: Reply['body'] = null;
            try {
              parsed = JSON.parse(text);
            } catch {
              // a non-JSON answer (an overloaded proxy, a crash page) counts by its status
            }
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: retry === undefined ? null : Number(retry),
              body: parsed,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Backlog of the job queue read from the file (a reader never blocks the server's writer). */
export function backlogReader(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const statement = db.prepare(
    "select count(*) as n, min(created_at) as oldest, sum(type = 'ner.accurate') as ner from jobs where status in ('pending', 'running')",
  );
  // Turns whose accurate NER was deferred (cheap mode) and not yet caught up: server/core/entities/ner/deferral.ts.
  const deferred = db
    .prepare(
      "select count(*) from turns where id >= (select value from meta where key = 'ner.deferred_from') and enriched_at is null",
    )
    .pluck();
  return {
    read: () => {
      const row = statement.get() as { n: number; oldest: number | null; ner: number | null };
      return {
        backlog: row.n,
        nerBacklog: row.ner ?? 0,
        lagSeconds: row.oldest === null ? 0 : round((Date.now() - row.oldest) / 1000, 1),
        deferred: deferred.get() as number,
      };
    },
    /** How many of `ids` are turns in the file. */
    stored: (ids: number[]) =>
      (
        db
          .prepare('select count(*) as n from turns where id in (select value from json_each(?))')
          .get(JSON.stringify(ids)) as { n: number }
      ).n,
    close: () => db.close(),
  };
}

export type GraphqlClient = ReturnType<typeof graphqlClient>;
export type BacklogReader = ReturnType<typeof backlogReader>;
