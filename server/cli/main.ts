// `sm` entry point. Exit codes: 0 ok, 1 runtime error, 2 bad usage or bad input. Errors on stderr.
import { ErrorCode, expectedOf, SmError } from '../services/kernel.ts';
import { CommanderError, type Command } from 'commander';
import { buildProgram } from './program.ts';

export const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

// Errors are told apart by name, not class: their modules load only when a command needs them.
type Named = { name?: string; code?: unknown; status?: number };

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  const { name, code } = (error ?? {}) as Named;
  if (error instanceof SmError || name === 'SymbiosisError')
    return code === ErrorCode.BadUserInput ? EXIT.usage : EXIT.runtime;
  if (name === 'ConfigError') return EXIT.usage;
  return EXIT.runtime;
}

/** API field names whose CLI flag is not simply the kebab-case of the name. */
const FLAG_OF: Record<string, string> = {
  content: 'text',
  sessionId: 'session',
  userId: 'user',
  agentId: 'agent',
  excludeSessionId: 'exclude-session',
  sessionIds: 'sessions',
};
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * A bad-input message names the field of the API (`input.text: must not be empty`); the user
 * typed a flag of the command (`--text`): name that when the command has it.
 */
function inFlags(message: string, command: Command | null): string {
  const match = /^([A-Za-z][\w.]*): /.exec(message);
  if (!match || !command) return message;
  const field = match[1]!.split('.').at(-1)!;
  const flag = [FLAG_OF[field], kebab(field)].find(
    (name) => name && command.options.some((o) => o.long === `--${name}`),
  );
  return flag ? `--${flag}: ${message.slice(match[0].length)}` : message;
}

/** What went wrong, in one line; a server out of reach says which URL and why. */
function describe(error: unknown, command: Command | null): string {
  // The typed client reports fetch's failure as code NETWORK, with fetch's error as its cause.
  const failed =
    (error as Named)?.name === 'SymbiosisError' && (error as Named).code === 'NETWORK' ? (error as Error).cause : error;
  if (failed instanceof TypeError && failed.message === 'fetch failed') {
    const cause = (failed as { cause?: { code?: string; message?: string } }).cause;
    return `cannot reach the server (${cause?.code ?? cause?.message ?? 'network error'}): check --url / SM_URL and that \`sm serve\` is running`;
  }
  const message = inFlags(error instanceof Error ? error.message : String(error), command);
  if ((error as Named)?.name === 'SymbiosisError' && (error as Named).status === 401)
    return `${message} (pass --token or set SM_API_TOKEN)`;
  return message;
}

// A reader that goes away (`sm export | head -1`) is not an error: stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

let running: Command | null = null;
try {
  await buildProgram()
    .hook('preAction', (_program, command) => {
      running = command;
    })
    .parseAsync(process.argv);
} catch (thrown) {
  // A query built with drizzle wraps what failed in "Failed query: <its SQL and values>": the
  // failure itself is what to say (the database gone, with its code), never the values.
  const error =
    expectedOf(thrown) ??
    ((thrown as Named)?.name === 'DrizzleQueryError' && (thrown as Error).cause instanceof Error
      ? (thrown as Error).cause
      : thrown);
  // Commander already printed its own message (usage errors, help).
  if (!(error instanceof CommanderError)) process.stderr.write(`sm: ${describe(error, running)}\n`);
  process.exitCode = exitCodeFor(error);
}
