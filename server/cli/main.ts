// `sm` entry point. Exit codes: 0 ok, 1 runtime error, 2 bad usage or bad input.
import { CommanderError } from 'commander';
import { ConfigError } from '../core/config.ts';
import { ErrorCode, SmError } from '../core/errors.ts';
import { buildProgram } from './program.ts';

export const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof SmError) return error.code === ErrorCode.BadUserInput ? EXIT.usage : EXIT.runtime;
  if (error instanceof ConfigError) return EXIT.usage;
  return EXIT.runtime;
}

const program = buildProgram();
try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = exitCodeFor(error);
  // Commander already printed its own message (usage errors, help).
  if (!(error instanceof CommanderError)) process.stderr.write(`sm: ${(error as Error).message}\n`);
  process.exitCode = code;
}
