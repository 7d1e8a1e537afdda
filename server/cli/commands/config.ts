// config get / set: the effective configuration and overrides stored in the database.
import { badInput } from '../../services/kernel.ts';
import type { Command } from 'commander';
import { withBackend } from '../backend.ts';
import { emit } from '../output.ts';
import type { GlobalOptions } from '../runtime.ts';

/** A CLI value as JSON when it parses (numbers, booleans, null, arrays), else as a string. */
function jsonValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function pick(config: unknown, key: string | undefined): unknown {
  if (!key) return config;
  let node = config;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part))
      throw badInput(`unknown config key ${key}`);
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

export function registerConfigCommands(program: Command, globals: () => GlobalOptions) {
  const config = program.command('config').description('read or change the configuration');
  config
    .command('get')
    .description('the effective configuration, or one key of it')
    .argument('[key]', 'dotted key, e.g. gc.mode')
    .addHelpText('after', '\nExamples:\n  sm config get\n  sm config get scoring.lambda')
    .action(async (key: string | undefined) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const value = pick((await sdk.config()).config, key);
        emit(options, value, () => (typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value)));
      });
    });
  config
    .command('set')
    .description(
      'store an override in the database (validated; llm, embedding, server, schedule and worker apply on restart)',
    )
    .argument('<key>', 'dotted key, e.g. gc.mode')
    .argument('<value>', 'the value (JSON or plain text)')
    .addHelpText('after', '\nExamples:\n  sm config set gc.mode delete\n  sm config set mid.capacity 1000')
    .action(async (key: string, raw: string) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { setConfig } = await sdk.setConfig({ key, value: jsonValue(raw) });
        const value = pick(setConfig, key);
        emit(options, { key, value }, () => `${key} = ${JSON.stringify(value)}`);
      });
    });
}
