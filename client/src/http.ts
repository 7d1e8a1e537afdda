// Queries and mutations over HTTP (fetch), with retries of reads after a network error or a
// proxy's 502/503/504.
import { type DocumentNode, print } from 'graphql';
import { networkError, type Result, SymbiosisError, unwrap } from './errors.ts';

/** Statuses of a proxy or a server that may answer on a second try. */
const RETRY_STATUS = new Set([502, 503, 504]);
const MAX_DELAY_MS = 5_000;
/** Exponential from 100 ms; the jitter (50 to 100 % of it) spreads out clients that failed together. */
const backoff = (attempt: number) => Math.min(MAX_DELAY_MS, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
/** `Retry-After` in seconds or as an HTTP date, capped; null when absent or unreadable. */
function retryAfter(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? null : Math.min(MAX_DELAY_MS, Math.max(0, ms));
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type HttpOptions = { url: string; fetch: typeof fetch; headers: Record<string, string> };

/** One operation as a POST: `retries` more attempts after a network error or a retryable status. */
export type HttpRequest = { doc: DocumentNode; variables: unknown; operationName?: string; retries: number };

/** Sends operations to `options.url`; an answer that is not GraphQL becomes a SymbiosisError with its status. */
export function httpSender(options: HttpOptions) {
  // Called unbound: a browser's fetch refuses to run with any `this` but the window.
  const doFetch = options.fetch;
  async function post(body: string): Promise<Response> {
    try {
      return await doFetch(options.url, { method: 'POST', headers: options.headers, body });
    } catch (error) {
      throw networkError(options.url, error);
    }
  }

  async function postWithRetries(body: string, retries: number): Promise<Response> {
    let response: Response;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      try {
        response = await post(body);
      } catch (error) {
        if (last) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || !RETRY_STATUS.has(response.status)) return response;
      await response.body?.cancel(); // frees the connection for the next attempt
      await sleep(retryAfter(response) ?? backoff(attempt));
    }
  }

  return async function send<R>({ doc, variables, operationName, retries }: HttpRequest): Promise<R> {
    const body = JSON.stringify({ query: print(doc), variables, operationName });
    const response = await postWithRetries(body, retries);
    let result: Result;
    try {
      result = (await response.json()) as Result;
    } catch {
      throw new SymbiosisError(
        `HTTP ${response.status}: not a GraphQL response`,
        [],
        response.status === 401 ? 'AUTH' : undefined,
        response.status,
      );
    }
    return unwrap<R>(result, response.status);
  };
}
