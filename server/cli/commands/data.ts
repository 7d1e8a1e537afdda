// export / import: JSON Lines of every record (sessions, turns, memories of all statuses, links,
// events, entities), and LoCoMo conversations for trying the memory on real dialogue.
import { badInput } from '../../services/kernel.ts';
import { closeSync, createReadStream, createWriteStream, openSync, readFileSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import type { ImportReport } from '../../core/export/import-records.ts';
import { withBackend, type Backend } from '../backend.ts';
import { count, emit } from '../output.ts';
import type { GlobalOptions } from '../runtime.ts';

/** The server's REST base (the GraphQL URL without /graphql) and its auth header. */
function rest(backend: Backend, path: string): { url: string; headers: Record<string, string> } {
  const base = backend.url!.replace(/\/graphql\/?$/, '');
  return { url: `${base}${path}`, headers: backend.token ? { authorization: `Bearer ${backend.token}` } : {} };
}

function openOut(path: string): number {
  try {
    return openSync(path, 'w');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such directory'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (error as Error).message;
    throw badInput(`--out: cannot write ${path} (${why})`);
  }
}

/** `?user_id=` for --user: export that user's records, import every record into that user. */
const userQuery = (backend: Backend) =>
  backend.space.userId ? `?user_id=${encodeURIComponent(backend.space.userId)}` : '';

async function exportTo(backend: Backend, out: NodeJS.WritableStream): Promise<number> {
  let lines = 0;
  const write = (line: string) => {
    lines++;
    return out.write(`${line}\n`) ? null : new Promise((resolve) => out.once('drain', resolve));
  };
  if (backend.runtime) {
    const { exportRecords } = await import('../../services/export.ts');
    for await (const record of exportRecords(backend.runtime.store, { userId: backend.space.userId }))
      await write(JSON.stringify(record));
    return lines;
  }
  const { url, headers } = rest(backend, `/export${userQuery(backend)}`);
  const response = await fetch(url, { headers });
  if (!response.ok || !response.body)
    throw new Error(`export failed: HTTP ${response.status} ${await response.text()}`);
  const reader = createInterface({ input: Readable.fromWeb(response.body as never) });
  for await (const line of reader) if (line) await write(line);
  return lines;
}

const isLocomoConversation = (value: unknown) => {
  const data = (value as { conversation?: unknown } | null)?.conversation ?? value;
  return typeof data === 'object' && data !== null && 'speaker_a' in data && 'session_1' in data;
};

/**
 * Whether `file` is a LoCoMo data file rather than an export: its first line is one whole
 * conversation (or an array of them), or a pretty-printed one that opens with LoCoMo's keys. Only
 * the first MB is read; an unreadable file is left to the import to report.
 */
function looksLikeLocomo(file: string): boolean {
  let head: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(1 << 20);
      head = buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  const first = head.split('\n', 1)[0]!;
  try {
    const value: unknown = JSON.parse(first);
    return Array.isArray(value) ? isLocomoConversation(value[0]) : isLocomoConversation(value);
  } catch {
    return /^\s*[[{]/.test(head) && /"speaker_a"\s*:/.test(head) && /"session_1"\s*:/.test(head);
  }
}

/** A progress bar on stderr for long imports, only where someone is watching. */
async function progress(total: number, unit: 'records' | 'turns') {
  if (!process.stderr.isTTY || total < 2000) return { update: (_n: number) => {}, stop: () => {} };
  // The module's own object: the CLI bundle gives a CommonJS package's exports as its default only.
  const { SingleBar } = (await import('cli-progress')).default;
  const bar = new SingleBar({
    format: `importing [{bar}] {percentage}% {value}/{total} ${unit}`,
    stream: process.stderr,
  });
  bar.start(total, 0);
  return { update: (n: number) => bar.update(n), stop: () => bar.stop() };
}

async function importFrom(backend: Backend, file: string): Promise<ImportReport> {
  if (backend.runtime) {
    const { importRecords } = await import('../../services/export.ts');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    // The total counts records, not the empty string after the last newline.
    const bar = await progress(lines.filter((line) => line.trim()).length, 'records');
    try {
      return await importRecords(backend.runtime.store, lines, {
        onProgress: bar.update,
        userId: backend.space.userId,
      });
    } finally {
      bar.stop();
    }
  }
  const { url, headers } = rest(backend, `/import${userQuery(backend)}`);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...headers },
    body: createReadStream(file) as never,
    duplex: 'half',
  } as RequestInit);
  const body = (await response.json()) as ImportReport | { error: { code?: string; message?: string } };
  if ('error' in body) {
    const message = `import refused (HTTP ${response.status}): ${body.error.message ?? 'unknown error'}`;
    throw body.error.code === 'BAD_USER_INPUT' ? badInput(message) : new Error(message);
  }
  return body;
}

/** LoCoMo conversations through addTurn, as an app would send them: speakers by name, session dates. */
async function importLocomo(backend: Backend, file: string, assistant?: string) {
  const { loadLocomo } = await import('../../services/export.ts');
  let conversations;
  try {
    conversations = loadLocomo(file);
  } catch (error) {
    throw badInput(error instanceof Error ? error.message : String(error)); // names the file or conversation
  }
  for (const conversation of conversations) {
    if (assistant && !conversation.speakers.includes(assistant))
      throw badInput(
        `--assistant: ${assistant} is not a speaker of ${conversation.name} (${conversation.speakers.join(', ')})`,
      );
  }
  let turns = 0;
  let memories = 0;
  const bar = await progress(
    conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0),
    'turns',
  );
  try {
    for (const conversation of conversations) {
      for (const session of conversation.sessions) {
        for (const turn of session.turns) {
          const { addTurn } = await backend.sdk.addTurn({
            input: {
              sessionId: `${conversation.name}:${session.index}`,
              role: turn.speaker === assistant ? 'ASSISTANT' : 'USER',
              name: turn.speaker,
              text: turn.text,
              at: new Date(turn.at).toISOString(),
            },
          });
          turns++;
          memories += addTurn.extracted.filter((e) => e.action === 'CREATED').length;
          bar.update(turns);
        }
      }
    }
  } finally {
    bar.stop();
  }
  const sessions = conversations.reduce((n, c) => n + c.sessions.length, 0);
  return {
    format: 'locomo',
    conversation: conversations.map((c) => c.name).join(', '),
    sessions,
    turns,
    memoriesCreated: memories,
  };
}

export function registerDataCommands(program: Command, globals: () => GlobalOptions) {
  program
    .command('export')
    .description(
      'write every record (of --user only, when given) as JSON Lines, a version header first; records carry their userId',
    )
    .option('--out <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  sm export --out backup.jsonl\n  sm --user alice export --out alice.jsonl\n  sm export | gzip > backup.jsonl.gz',
    )
    .action(async (opts: { out?: string }) => {
      const options = globals();
      // Opened first, so that an unwritable path is a usage error naming the flag, before any work.
      const fd = opts.out === undefined ? null : openOut(opts.out);
      await withBackend(options, async (backend) => {
        const out = fd !== null ? createWriteStream('', { fd }) : process.stdout;
        const lines = await exportTo(backend, out);
        if (opts.out) {
          out.end();
          await finished(out);
          emit(options, { file: opts.out, lines }, () => `exported ${count(lines, 'line')} to ${opts.out}`);
        }
      });
    });

  program
    .command('import')
    .description(
      'restore an export (idempotent: records already present are not duplicated; with --user every record goes to that user), or load a LoCoMo conversation',
    )
    .argument(
      '<file>',
      "a file from `sm export`, or a LoCoMo JSON file with --format locomo (one conversation, or the data set's array of them)",
    )
    .addOption(new Option('--format <format>', 'what the file is').choices(['jsonl', 'locomo']).default('jsonl'))
    .option('--assistant <speaker>', 'locomo: the speaker to store as the assistant (default: both are users)')
    .addHelpText('after', '\nExamples:\n  sm import backup.jsonl\n  sm import --format locomo conv-26.json')
    .action(async (file: string, opts: { format: 'jsonl' | 'locomo'; assistant?: string }) => {
      const options = globals();
      // Checked before the store is opened: a wrong guess about the format changes nothing.
      if (opts.format === 'jsonl' && looksLikeLocomo(file))
        throw badInput(`${file} looks like a LoCoMo file: add --format locomo`);
      await withBackend(options, async (backend) => {
        const report =
          opts.format === 'locomo'
            ? await importLocomo(backend, file, opts.assistant)
            : await importFrom(backend, file);
        emit(options, report, () =>
          'format' in report
            ? `loaded ${report.conversation}: ${count(report.sessions, 'session')}, ${count(report.turns, 'turn')}, ${count(report.memoriesCreated, 'memory', 'memories')} created`
            : `imported ${count(report.lines, 'line')}: ${Object.entries(report)
                .filter(([key]) => key !== 'lines')
                .map(([type, counts]) => `${type} +${(counts as { added: number }).added}`)
                .join(', ')}`,
        );
      });
    });
}
