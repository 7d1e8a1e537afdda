// The embedded CLI's most frequent reads (search, get-context, stats) without GraphQL: each calls
// the services its schema resolver calls and returns what the typed client's operation returns,
// the same fields in the same order. Why: loading graphql, Pothos and the schema's modules and
// building the schema cost a one-shot process more than the read itself (about 150 ms of an
// embedded `sm search`'s 350). Every other operation still runs on the schema (backend.ts), and
// test/cli-remote.test.ts compares these with a server's answers, errors included.
import { parseTime, badInput } from '../services/kernel.ts';
import { ADMIN, spaceFor } from '../services/tokens.ts';
import type {
  ContextQuery,
  ContextQueryVariables,
  Sdk,
  SearchQuery,
  SearchQueryVariables,
  StatsQuery,
  StatsQueryVariables,
} from '../../client/src/generated/sdk.ts';
import { EXTRACTION_PATHS, readExtractionStats } from '../core/extraction/stats.ts';
import { getStats } from '../core/stats/stats.ts';
import { assembleContext } from '../services/context.ts';
import { searchMemory } from '../services/search.ts';
import type { Runtime } from '../services/runtime.ts';
import { contextJson, searchHitJson, statsJson } from '../services/json-shapes.ts';

export type DirectReads = Pick<Sdk, 'search' | 'context' | 'stats'>;
type Space = { userId?: string; agentId?: string };
type Named = { userId?: string | null; agentId?: string | null };

// Variables are coerced as GraphQL coerces them, with graphql-js's messages: a bad one fails
// the same way (BAD_USER_INPUT) with or without --url.
const invalid = (name: string, value: unknown, why: string) =>
  badInput(`Variable "$${name}" got invalid value ${JSON.stringify(value)}; ${why}`);

function int(name: string, value: number | null | undefined): number | null | undefined {
  if (value == null) return value;
  if (!Number.isInteger(value)) throw invalid(name, value, `Int cannot represent non-integer value: ${value}`);
  if (value > 2 ** 31 - 1 || value < -(2 ** 31))
    throw invalid(name, value, `Int cannot represent non 32-bit signed integer value: ${value}`);
  return value;
}

/** The DateTime scalar's input: ISO-8601 or epoch milliseconds, not before 1970. */
function dateTime(name: string, value: string | null | undefined): number | null | undefined {
  if (value == null) return value;
  const ms = parseTime(value);
  if (ms === null || ms < 0)
    throw invalid(
      name,
      value,
      `DateTime: expected an ISO-8601 date-time or epoch milliseconds, got ${JSON.stringify(value)}`,
    );
  return ms;
}

/** A list variable given one value is a list of that value. */
function list<T>(value: T | T[] | null | undefined): T[] | null | undefined {
  if (value == null) return value as null | undefined;
  return Array.isArray(value) ? value : [value];
}

/** An enum value in, as the db names it. */
const dbEnum = <T extends string>(value: T) => value.toLowerCase() as Lowercase<T>;

export function directReads(runtime: Runtime, space: Space): DirectReads {
  const { store } = runtime;
  // As withSpace fills them into an operation's variables (unless the call names its own), and
  // as the schema's readSpace checks them: the embedded CLI is the admin.
  const named = (vars: Named) => ({ userId: vars.userId ?? space.userId, agentId: vars.agentId ?? space.agentId });
  const readSpace = (vars: Named) => spaceFor(ADMIN, named(vars), 'read');

  return {
    async search(vars: SearchQueryVariables): Promise<SearchQuery> {
      const input = {
        query: vars.query,
        kinds: list(vars.kinds)?.map(dbEnum) ?? undefined,
        limit: int('limit', vars.limit) ?? undefined,
        excludeSessionId: vars.excludeSessionId,
        sessionIds: list(vars.sessionIds),
        from: dateTime('from', vars.from),
        to: dateTime('to', vars.to),
        tags: list(vars.tags),
        status: vars.status == null ? undefined : dbEnum(vars.status),
        speakers: list(vars.speakers),
      };
      const { hits } = await searchMemory(runtime, readSpace(vars), input);
      return { search: hits.map(searchHitJson) };
    },

    async context(vars: ContextQueryVariables): Promise<ContextQuery> {
      const c = await assembleContext(runtime, readSpace(vars), {
        sessionId: vars.sessionId,
        query: vars.query,
        tokenBudget: int('tokenBudget', vars.tokenBudget),
      });
      return { context: contextJson(c) };
    },

    async stats(vars: StatsQueryVariables = {}): Promise<StatsQuery> {
      // The admin without a user counts the whole file (the schema's optionalSpace).
      const { userId } = named(vars);
      const s = await getStats(store, userId == null ? null : readSpace(vars));
      const extraction = await readExtractionStats(store);
      return {
        stats: statsJson(
          s,
          EXTRACTION_PATHS.map((path) => ({ path, ...extraction[path] })),
        ),
      };
    },
  };
}
