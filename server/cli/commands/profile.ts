// sm profile: the user's standing instructions, preferences, profile facts and pinned memories
// (what opens every context block), and pinning, unpinning and rewording them.
import type { Command } from 'commander';
import type { MemoryFieldsFragment } from '../../../client/src/generated/sdk.ts';
import { withBackend } from '../backend.ts';
import { memoryLine } from '../format.ts';
import { count, emit } from '../output.ts';
import { integer } from '../parse.ts';
import type { GlobalOptions } from '../runtime.ts';

const section = (title: string, rows: MemoryFieldsFragment[]) =>
  rows.length === 0 ? [] : [`${title}:`, ...rows.map((m) => `  ${memoryLine(m)}${m.pinned ? ' (pinned)' : ''}`)];

export function registerProfileCommands(program: Command, globals: () => GlobalOptions) {
  const profile = program
    .command('profile')
    .description(
      'standing instructions, preferences, profile facts and pinned memories: what opens every context block (list, pin, unpin, edit)',
    );

  profile
    .command('list', { isDefault: true })
    .description('the profile of --user (and --agent): instructions, preferences, profile facts, pinned memories')
    .option('--limit <n>', 'at most this many of each (1 to 500)', integer)
    .addHelpText('after', '\nExamples:\n  sm profile\n  sm profile list --user alice --json')
    .action(async (opts: { limit?: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { profile: p } = await sdk.profile({ limit: opts.limit });
        emit(options, p, () => {
          const lines = [
            ...section('Standing instructions', p.instructions),
            ...section('Preferences', p.preferences),
            ...section('Profile', p.profile),
            ...section('Pinned', p.pinned),
          ];
          return lines.length === 0
            ? `no standing memory for ${p.userId}`
            : `${lines.join('\n')}\n${count(p.total, 'memory', 'memories')}`;
        });
      });
    });

  profile
    .command('pin')
    .description('pin a memory of any kind: always in context, exempt from GC and decay')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm profile pin --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { pinMemory } = await sdk.pinMemory({ id: opts.id });
        emit(options, pinMemory, () => `pinned ${memoryLine(pinMemory)}`);
      });
    });

  profile
    .command('unpin')
    .description('unpin a memory')
    .requiredOption('--id <id>', 'memory id', integer)
    .addHelpText('after', '\nExample:\n  sm profile unpin --id 12')
    .action(async (opts: { id: number }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { unpinMemory } = await sdk.unpinMemory({ id: opts.id });
        emit(options, unpinMemory, () => `unpinned ${memoryLine(unpinMemory)}`);
      });
    });

  profile
    .command('edit')
    .description('reword a standing instruction (the old wording is kept as superseded history)')
    .requiredOption('--id <id>', 'instruction id', integer)
    .requiredOption('--text <text>', 'the new wording')
    .addHelpText(
      'after',
      '\nExample:\n  sm profile edit --id 7 --text "Always include version numbers and release dates"',
    )
    .action(async (opts: { id: number; text: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { editInstruction } = await sdk.editInstruction({ id: opts.id, content: opts.text });
        emit(
          options,
          editInstruction,
          () => `${memoryLine(editInstruction.memory)} (supersedes #${editInstruction.previous.id})`,
        );
      });
    });
}
