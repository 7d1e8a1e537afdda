// Global options and the clock every command shares.
import type { Command } from 'commander';
import { fixedClock, parseTime, systemClock, type Clock, badInput } from '../services/kernel.ts';

export type GlobalOptions = {
  db?: string;
  json?: boolean;
  url?: string;
  token?: string;
  user?: string;
  agent?: string;
};

/** Adds one command (or one group) to `program`; `globals` reads the global options when it runs. */
export type RegisterCommand = (program: Command, globals: () => GlobalOptions) => void;

/** Whose memory a command works on: --user / --agent, else SM_USER / SM_AGENT; unset leaves the server's default. */
export function spaceOption(options: GlobalOptions): { userId?: string; agentId?: string } {
  const userId = options.user ?? (process.env.SM_USER || undefined);
  const agentId = options.agent ?? (process.env.SM_AGENT || undefined);
  const flag = (name: string, env: string, given: string | undefined) => (given === undefined ? env : name);
  // Checked here so that the message names the flag the user typed (exit 2), not an API field.
  const bad = (value: string | undefined) => value !== undefined && !/^[A-Za-z0-9._:@-]{1,128}$/.test(value);
  if (bad(userId))
    throw badInput(
      `${flag('--user', 'SM_USER', options.user)}: a user id is 1 to 128 letters, digits and . _ : @ - (got ${JSON.stringify(userId)})`,
    );
  if (bad(agentId))
    throw badInput(
      `${flag('--agent', 'SM_AGENT', options.agent)}: an agent id is 1 to 128 letters, digits and . _ : @ - (got ${JSON.stringify(agentId)})`,
    );
  return { userId, agentId };
}

/** SM_NOW (ISO-8601 or epoch ms) pins the clock for one process: imports, simulations, tests. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const raw = env.SM_NOW;
  if (raw === undefined || raw === '') return systemClock;
  const at = parseTime(raw);
  if (at === null) throw badInput(`SM_NOW: ${JSON.stringify(raw)} is neither ISO-8601 nor epoch milliseconds`);
  if (at < 0) throw badInput(`SM_NOW: ${JSON.stringify(raw)} is before 1970`);
  return fixedClock(at);
}
