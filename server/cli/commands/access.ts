// token create / list / revoke, users, forget-user: who may reach which memory space (admin).
import { badInput } from '../../services/kernel.ts';
import type { Command } from 'commander';
import { withBackend } from '../backend.ts';
import { count, emit, page, table } from '../output.ts';
import { integer } from '../parse.ts';
import { spaceOption, type GlobalOptions, type RegisterCommand } from '../runtime.ts';

/** --user is the global option: the user a token reaches, or the user to erase. */
function requiredUser(options: GlobalOptions, command: string): string {
  const { userId } = spaceOption(options);
  if (!userId) throw badInput(`--user: required by \`sm ${command}\` (the user id, e.g. --user alice)`);
  return userId;
}

export function registerAccessCommands(program: Command, globals: () => GlobalOptions) {
  const token = program
    .command('token')
    .description('scoped access tokens: one user (and agent) each, optionally read-only (admin)');
  for (const register of [tokenCreate, tokenList, tokenRevoke]) register(token, globals);
  users(program, globals);
  forgetUser(program, globals);
}

const tokenCreate: RegisterCommand = (token, globals) =>
  token
    .command('create')
    .description('create a token for --user (and --agent); its secret is printed once and stored only as a hash')
    .option('--read-only', 'refuse every write with this token')
    .option('--label <text>', 'a note of what it is for')
    .addHelpText(
      'after',
      '\nExamples:\n  sm token create --user alice\n  sm token create --user alice --agent support-bot --read-only --label "dashboard"',
    )
    .action(async (opts: { readOnly?: boolean; label?: string }) => {
      const options = globals();
      const userId = requiredUser(options, 'token create');
      const { agentId } = spaceOption(options);
      await withBackend(options, async ({ sdk }) => {
        const { createAccessToken: created } = await sdk.createAccessToken({
          userId,
          agentId,
          readOnly: opts.readOnly ?? false,
          label: opts.label,
        });
        const t = created.accessToken;
        emit(options, created, () =>
          [
            created.token,
            `token ${t.id} for user ${t.userId}${t.agentId ? `, agent ${t.agentId}` : ''}${t.readOnly ? ', read-only' : ''}.`,
            'This is the only time it is shown: store it now (send it as Authorization: Bearer <token>).',
          ].join('\n'),
        );
      });
    });

const tokenList: RegisterCommand = (token, globals) =>
  token
    .command('list')
    .description('tokens (of --user, when given), oldest first; secrets are never shown')
    .option('--all', 'include revoked tokens')
    .addHelpText('after', '\nExamples:\n  sm token list\n  sm token list --user alice --all')
    .action(async (opts: { all?: boolean }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { accessTokens } = await sdk.accessTokens({
          userId: spaceOption(options).userId,
          includeRevoked: opts.all ?? false,
        });
        emit(options, accessTokens, () =>
          accessTokens.length === 0
            ? 'no tokens'
            : table(
                ['id', 'prefix', 'user', 'agent', 'access', 'label', 'created', 'last used', 'revoked'],
                accessTokens.map((t) => [
                  t.id,
                  `${t.prefix}…`,
                  t.userId,
                  t.agentId ?? '*',
                  t.readOnly ? 'read' : 'read+write',
                  t.label,
                  t.createdAt,
                  t.lastUsedAt ?? 'never',
                  t.revokedAt ?? '',
                ]),
              ),
        );
      });
    });

const tokenRevoke: RegisterCommand = (token, globals) =>
  token
    .command('revoke')
    .description('revoke a token at once: its next request is refused, its open subscriptions close')
    .argument('<id>', 'token id (see sm token list)', integer)
    .addHelpText('after', '\nExample:\n  sm token revoke 3')
    .action(async (id: number) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { revokeAccessToken: t } = await sdk.revokeAccessToken({ id });
        emit(options, t, () => `revoked token ${t.id} (${t.prefix}…) of user ${t.userId}`);
      });
    });

const users: RegisterCommand = (program, globals) =>
  program
    .command('users')
    .description('users with memory here, with their counts (admin)')
    .option('--prefix <text>', 'only ids starting with this')
    .option('--limit <n>', 'page size', integer, 50)
    .option('--after <cursor>', 'continue after this cursor')
    .addHelpText('after', '\nExample:\n  sm users --prefix team-')
    .action(async (opts: { prefix?: string; limit: number; after?: string }) => {
      const options = globals();
      await withBackend(options, async ({ sdk }) => {
        const { users } = await sdk.users({ prefix: opts.prefix, first: opts.limit, after: opts.after });
        emit(options, page(users, 'users'), () => {
          const rows = users.edges.map((e) => e.node);
          if (rows.length === 0) return 'no users';
          return `${table(
            ['user', 'turns', 'sessions', 'memories', 'active', 'entities', 'last active'],
            rows.map((u) => [
              u.id,
              u.turns,
              u.sessions,
              u.memories,
              u.activeMemories,
              u.entities,
              u.lastActiveAt ?? '',
            ]),
          )}\n${rows.length} of ${users.totalCount}`;
        });
      });
    });

const forgetUser: RegisterCommand = (program, globals) =>
  program
    .command('forget-user')
    .description(
      'hard-delete everything of --user in one transaction (turns, memories, entities, log, jobs, tokens, index entries, vectors)',
    )
    .option('--vacuum', 'rewrite the database file afterwards so no freed page keeps the text')
    .option('--yes', 'confirm: without it nothing is deleted')
    .addHelpText('after', '\nExample:\n  sm forget-user --user alice --vacuum --yes')
    .action(async (opts: { vacuum?: boolean; yes?: boolean }) => {
      const options = globals();
      const userId = requiredUser(options, 'forget-user');
      if (!opts.yes) throw badInput(`--yes: required to erase user ${userId} (this cannot be undone)`);
      await withBackend(options, async ({ sdk }) => {
        const { forgetUser: r } = await sdk.forgetUser({ userId, vacuum: opts.vacuum ?? false });
        emit(
          options,
          r,
          () =>
            `forgot user ${r.userId}: ${count(r.turns, 'turn')}, ${count(r.sessions, 'session')}, ${count(r.memories, 'memory', 'memories')}, ${count(r.entities, 'entity', 'entities')}, ${count(r.events, 'log entry', 'log entries')}, ${count(r.jobs, 'job')}, ${count(r.tokens, 'token')}, ${count(r.vectors, 'vector')}${r.vacuumed ? '; file vacuumed' : ''}`,
        );
      });
    });
