// The clients of bench:load (load.ts, load-reads.ts): GraphQL operations retried as a
// well-behaved client retries a 503, and closed-loop clients (each sends its next request when
// the last is answered) with their throughput and latency.
import { userName } from './synthetic.ts';
import { memoryOf, type BacklogReader, type GraphqlClient, type Server } from './load-server.ts';
import { percentile, round } from './stats.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const ADD_TURN =
  'mutation($input: AddTurnInput!, $userId: String) { addTurn(input: $input, userId: $userId) { turn { id } } }';
export const SEARCH =
  'query($query: String!, $userId: String) { search(query: $query, limit: 10, userId: $userId) { kind id text score } }';

/** The first failure of the run, printed with the tables: a run whose requests fail measures nothing. */
let firstError: string | null = null;
export const firstFailure = () => firstError;

type Outcome = { ms: number; ok: boolean; turnId: number | null; refused: number; error: string | null };

/**
 * One operation, retried after Retry-After while the server answers 503. `ms` runs from the
 * first try to the final answer; `refused` counts the 503s on the way.
 */
export async function call(client: GraphqlClient, query: string, variables: Record<string, unknown>): Promise<Outcome> {
  const started = performance.now();
  let refused = 0;
  for (;;) {
    const reply = await client.post(query, variables);
    if (reply.status === 503) {
      refused++;
      await sleep(Math.max(0.05, reply.retryAfter ?? 1) * 1000);
      continue;
    }
    const ok = reply.status === 200 && !reply.body?.errors?.length;
    const turnId = (reply.body?.data?.addTurn?.turn?.id as number | undefined) ?? null;
    const error = ok ? null : `HTTP ${reply.status}: ${reply.body?.errors?.[0]?.message ?? 'no GraphQL answer'}`;
    if (error) firstError ??= error;
    return { ms: performance.now() - started, ok, turnId, refused, error };
  }
}

export type Stat = { p50: number; p95: number; p99: number };
export const stat = (values: number[]): Stat => ({
  p50: round(percentile(values, 50), 2),
  p95: round(percentile(values, 95), 2),
  p99: round(percentile(values, 99), 2),
});

export type Context = {
  server: Server;
  client: GraphqlClient;
  reader: BacklogReader;
  nextTurn: (client: number) => { input: Record<string, unknown>; userId: string };
  acked: number[];
};

/** `clients` closed-loop clients doing `op` for `seconds`: throughput and latency. */
export async function closedLoop(
  ctx: Context,
  op: 'search' | 'addTurn',
  clients: number,
  seconds: number,
  queries: string[],
) {
  const latencies: number[] = [];
  let refused = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const outcome =
          op === 'search'
            ? await call(ctx.client, SEARCH, {
                query: queries[(i * clients + c) % queries.length],
                userId: userName(c % 16, 16),
              })
            : await call(ctx.client, ADD_TURN, ctx.nextTurn(c));
        refused += outcome.refused;
        if (!outcome.ok) failed++;
        else latencies.push(outcome.ms);
        if (outcome.turnId !== null) ctx.acked.push(outcome.turnId);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const memory = memoryOf(ctx.server.pid);
  return {
    op,
    clients,
    answered: latencies.length,
    requestsPerSecond: round(latencies.length / elapsed, 1),
    latencyMs: stat(latencies),
    refused,
    failed,
    backlogAfter: ctx.reader.read().backlog,
    rssMB: memory?.rssMB ?? null,
    peakMB: memory?.peakMB ?? null,
  };
}
