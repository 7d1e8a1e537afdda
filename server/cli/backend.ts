// Where a command's operations go. Every command is an operation of the typed client: with
// --url it is sent to a running server; otherwise it runs in process against the same schema
// over the embedded database, so both modes print the same JSON. Embedded, the frequent reads
// (search, get-context, stats) call their services without GraphQL (serviceReads below), and the
// schema is loaded only by the first operation that needs it. Everything heavy is imported when a
// command runs, so `sm --help` stays instant.
import { existsSync } from 'node:fs';
import type { Sdk } from '../../client/src/generated/sdk.ts';
import type { Runtime } from '../services/runtime.ts';
import type { Space } from '../core/kernel/space.ts';
import { clockFromEnv, spaceOption, type GlobalOptions } from './runtime.ts';

export type Backend = {
  sdk: Sdk;
  mode: 'embedded' | 'remote';
  /** The embedded runtime (null with --url): for commands that work on the file itself. */
  runtime: Runtime | null;
  url: string | null;
  token: string | null;
  /** --user / --agent (or SM_USER / SM_AGENT) as given; the sdk fills them into every operation taking them. */
  space: { userId?: string; agentId?: string };
  /** The sdk bound to another space (the same connection). */
  forUser(userId: string, agentId?: string): Sdk;
  close(): Promise<void>;
};

/**
 * Work an embedded command queued that the user waits for (LLM extraction in llm/hybrid mode,
 * consolidation of a finished session) is done before the process exits. The rest (accurate
 * NER, embeddings) stays queued, durable, for the server or `sm jobs --run`.
 */
const FOREGROUND_JOBS: readonly string[] = ['extract.llm', 'session.consolidate'];

type Named = { userId?: string | null; agentId?: string | null };
type ServiceReads = Pick<Sdk, 'search' | 'context' | 'stats'>;

const readServices = async () => {
  const [search, context, stats, shapes, tokens, kernel] = await Promise.all([
    import('../services/search.ts'),
    import('../services/context.ts'),
    import('../services/stats.ts'),
    import('../services/json-shapes.ts'),
    import('../services/tokens.ts'),
    import('../services/kernel.ts'),
  ]);
  return { ...search, ...context, ...stats, ...shapes, ...tokens, ...kernel };
};

/** A list variable given one value is a list of that value. */
function listOf<T extends string>(value: T | T[] | null | undefined): T[] | null | undefined {
  if (value == null) return value;
  return Array.isArray(value) ? value : [value];
}
const lower = <T extends string>(value: T) => value.toLowerCase() as Lowercase<T>;

/**
 * search, get-context and stats embedded: the services their resolvers call, on the open store,
 * in the API's JSON (services/json-shapes.ts), without loading GraphQL: graphql, Pothos and the
 * schema cost a one-shot process more than the read itself. The CLI's flags already hold only
 * what the API's types take (parse.ts), so the two modes fail alike on bad input.
 */
function serviceReads(
  runtime: Runtime,
  named: Backend['space'],
  s: Awaited<ReturnType<typeof readServices>>,
): ServiceReads {
  // The embedded CLI is the admin; an operation's own userId / agentId wins, as withSpace fills them.
  const space = (vars: Named): Space =>
    s.spaceFor(s.ADMIN, { userId: vars.userId ?? named.userId, agentId: vars.agentId ?? named.agentId }, 'read');
  const time = (value: string | null | undefined) => (value == null ? value : s.parseTime(value));
  return {
    async search(vars) {
      const { hits } = await s.searchMemory(runtime, space(vars), {
        query: vars.query,
        kinds: listOf(vars.kinds)?.map(lower) ?? undefined,
        limit: vars.limit ?? undefined,
        excludeSessionId: vars.excludeSessionId,
        sessionIds: listOf(vars.sessionIds),
        from: time(vars.from),
        to: time(vars.to),
        tags: listOf(vars.tags),
        status: vars.status == null ? undefined : lower(vars.status),
        speakers: listOf(vars.speakers),
      });
      return { search: hits.map(s.searchHitJson) };
    },
    async context(vars) {
      const input = { sessionId: vars.sessionId, query: vars.query, tokenBudget: vars.tokenBudget };
      return { context: s.contextJson(await s.assembleContext(runtime, space(vars), input)) };
    },
    async stats(vars = {}) {
      // The admin without a user counts the whole file (as the schema's optionalSpace does).
      const whole = (vars.userId ?? named.userId) == null;
      const counts = await s.getStats(runtime.store, whole ? null : space(vars));
      return { stats: s.statsJson(counts, await s.extractionStats(runtime.store, s.ADMIN)) };
    },
  };
}

/**
 * The embedded sdk: the service reads, and every other operation on the schema, which (graphql,
 * Pothos, every resolver's module, the client's documents) is loaded by the first call that
 * needs it. Every operation is async, so a name the service reads lack answers once that is
 * loaded. (The local requester runs queries and mutations; subscriptions need a server.)
 */
function embeddedSdk(reads: ServiceReads, schemaSdk: () => Promise<Sdk>): Sdk {
  const own = reads as Record<string, unknown>;
  return new Proxy({} as Sdk, {
    get(_target, name) {
      // Not a thenable: `await` on the sdk must not call an operation named `then`.
      if (typeof name !== 'string' || name === 'then') return undefined;
      if (Object.hasOwn(own, name)) return own[name];
      return async (...args: unknown[]) =>
        ((await schemaSdk()) as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
    },
  });
}

async function embedded(options: GlobalOptions): Promise<Backend> {
  const space = spaceOption(options);
  const [{ closeStore }, { chooseStore, openConfiguredStore }] = await Promise.all([
    import('../storage/sqlite/open.ts'),
    import('../storage/configured-store.ts'),
  ]);
  // --db (a SQLite file), else SM_DATABASE_URL (Postgres), else SM_DB or the default file.
  const choice = chooseStore({ db: options.db });
  // A file nobody named is said once, when it is made: memories then never scatter unseen.
  const announce = choice.backend === 'sqlite' && !choice.named && !existsSync(choice.path);
  const store = await openConfiguredStore(choice, { clock: clockFromEnv() });
  if (announce) process.stderr.write(`sm: created a new database at ${choice.path} (--db or SM_DB picks another)\n`);
  try {
    const [{ createRuntime }, { onChange }, services] = await Promise.all([
      import('../services/runtime.ts'),
      import('../services/changes.ts'),
      readServices(),
    ]);
    const runtime = await createRuntime(store);
    const sdkFor = (named: Backend['space']): Sdk => {
      let viaSchema: Promise<Sdk> | undefined;
      const schemaSdk = async () => {
        const [{ getSdk }, { withSpace }, { localRequester }, { ADMIN }] = await Promise.all([
          import('../../client/src/generated/sdk.ts'),
          import('../../client/src/index.ts'),
          import('../graphql/local-requester.ts'),
          import('../services/tokens.ts'),
        ]);
        return getSdk(withSpace(localRequester(runtime, ADMIN), named));
      };
      return embeddedSdk(serviceReads(runtime, named, services), () => (viaSchema ??= schemaSdk()));
    };
    const queued: number[] = [];
    const stopWatching = onChange(store, (event) => {
      if (
        event.type === 'job' &&
        event.status === 'pending' &&
        event.jobType &&
        FOREGROUND_JOBS.includes(event.jobType)
      )
        queued.push(event.jobId);
    });
    return {
      // Whoever can open the file owns all of it: the embedded CLI is the admin.
      sdk: sdkFor(space),
      forUser: (userId, agentId) => sdkFor({ userId, agentId }),
      mode: 'embedded',
      runtime,
      url: null,
      token: null,
      space,
      async close() {
        stopWatching();
        try {
          if (queued.length > 0) {
            // Loaded only when a command queued such work: reads never pay for the job handlers.
            const [{ drainJobs }, { jobHandlers }] = await Promise.all([
              import('../jobs/worker.ts'),
              import('../services/job-handlers.ts'),
            ]);
            await drainJobs(store, jobHandlers(runtime), { ids: queued });
          }
        } finally {
          await closeStore(store);
        }
      },
    };
  } catch (error) {
    await closeStore(store);
    throw error;
  }
}

async function remote(url: string, token: string | null, space: Backend['space']): Promise<Backend> {
  const [{ createClient }, { default: WebSocket }] = await Promise.all([
    import('../../client/src/index.ts'),
    import('ws'),
  ]);
  const client = createClient({ url, token: token ?? undefined, webSocketImpl: WebSocket, ...space });
  return {
    sdk: client,
    forUser: (userId, agentId) => client.forUser(userId, agentId),
    mode: 'remote',
    runtime: null,
    url,
    token,
    space,
    close: () => client.dispose(),
  };
}

export async function openBackend(options: GlobalOptions): Promise<Backend> {
  const url = options.url ?? process.env.SM_URL;
  const token = options.token ?? process.env.SM_API_TOKEN ?? null;
  return url ? remote(url, token, spaceOption(options)) : embedded(options);
}

/** Opens the backend for one command and always closes it. */
export async function withBackend<T>(options: GlobalOptions, fn: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(options);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}
