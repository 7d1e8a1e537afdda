// /ready, for a load balancer in front of several nodes: whether this node can serve now, that is
// whether its database answers. /health only says the process is up (a node whose database is
// gone is alive, and recovers by itself once it is back). Open without a token, like /health:
// it tells nothing but yes or no, and it runs before the token check, which reads the database.
import { useReadinessCheck, type Plugin } from 'graphql-yoga';
import type { Store } from '../core/kernel/store.ts';

export const READY_PATH = '/ready';

/** A database that has not answered by then counts as gone (a load balancer's probe has its own timeout). */
const ANSWER_WITHIN_MS = 2_000;
const RETRY_AFTER_SECONDS = 5;

export function readinessCheck(store: Store): Plugin {
  return useReadinessCheck({
    endpoint: READY_PATH,
    check: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ANSWER_WITHIN_MS)));
      const answered = await Promise.race([
        store.sql.pluck('select 1').then(
          () => true,
          () => false,
        ),
        late,
      ]);
      clearTimeout(timer);
      if (answered) return true;
      return new Response(JSON.stringify({ ready: false, reason: 'the database does not answer' }), {
        status: 503,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    },
  });
}
