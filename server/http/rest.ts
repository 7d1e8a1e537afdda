// The REST routes (docs/api.md#rest): a thin layer over the same core functions the GraphQL API calls.
import { parseTime, badInput, ErrorCode, expectedOf } from '../services/kernel.ts';
import { spaceFor } from '../services/tokens.ts';
import type { Logger } from 'pino';
import type { Plugin } from 'graphql-yoga';
import { explain } from '../core/memory/explain.ts';
import { runGc } from '../core/memory/gc.ts';
import { remember } from '../core/memory/memories.ts';
import { updateMemory } from '../core/memory/memory-edits.ts';
import { listMemories } from '../core/memory/memory-list.ts';
import type { Space } from '../core/kernel/space.ts';
import type { Store } from '../core/kernel/store.ts';
import { accessOf } from './auth.ts';
import { ingestTurn } from '../services/ingest.ts';
import { assembleContext } from '../services/context.ts';
import type { Runtime } from '../services/runtime.ts';
import { restContextJson, restGcJson, restMemoryJson, restTurnJson, restWhyJson } from '../services/json-shapes.ts';

type Body = Record<string, unknown>;
type Call = {
  store: Store;
  runtime: Runtime;
  params: string[];
  query: URLSearchParams;
  body: () => Promise<Body>;
  /** The space named by `user_id` / `agent_id` (query string, or the JSON body for writes), checked against the token. */
  space: (mode: 'read' | 'write', body?: Body) => Space;
};
type Reply = { status: number; body: unknown };
type Route = { method: string; path: RegExp; run: (call: Call) => Reply | Promise<Reply> };

const STATUS: Record<string, number> = {
  [ErrorCode.BadUserInput]: 400,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.DatabaseUnavailable]: 503,
};

/** `user_id` and `agent_id` in the REST routes' snake_case; anything but a string is refused. */
function namedSpace(source: Body | URLSearchParams): { userId?: string; agentId?: string } {
  const get = (key: string) => (source instanceof URLSearchParams ? (source.get(key) ?? undefined) : source[key]);
  const pick = (key: string) => {
    const raw = get(key);
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'string') throw badInput(`${key}: must be a string`);
    return raw;
  };
  return { userId: pick('user_id'), agentId: pick('agent_id') };
}

/** Query-string values are strings; numbers are passed as numbers so the core schemas can check them. */
const value = (raw: string | null) => (raw === null ? undefined : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw);

const withoutUndefined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

function idParam(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badInput('id: must be a positive integer');
  return Number(raw);
}

function timeValue(raw: unknown) {
  if (typeof raw !== 'string') return raw as number | null | undefined;
  const ms = parseTime(raw);
  if (ms === null) throw badInput('at: expected an ISO-8601 date-time or epoch milliseconds');
  return ms;
}

const routes: Route[] = [
  {
    method: 'POST',
    path: /^\/turns$/,
    run: async ({ runtime, body, space }) => {
      const b = await body();
      const { turn, extracted } = await ingestTurn(runtime, space('write', b), {
        sessionId: b.session_id as string,
        role: b.role as 'user',
        name: b.name as string | undefined,
        text: b.text as string,
        autoExtract: b.auto_extract as boolean | undefined,
        at: timeValue(b.at),
      });
      return {
        status: 201,
        body: {
          turn_id: turn.id,
          turn: restTurnJson(turn),
          extracted_memories: extracted.map((e) => ({
            id: e.memory.id,
            content: e.memory.content,
            action: e.action,
            rule: e.rule,
          })),
        },
      };
    },
  },
  {
    method: 'GET',
    path: /^\/context$/,
    run: async ({ runtime, query, space }) => ({
      status: 200,
      body: restContextJson(
        await assembleContext(runtime, space('read'), {
          sessionId: query.get('session_id') as string,
          k: value(query.get('k')) as number,
          query: query.get('query'),
          tokenBudget: value(query.get('token_budget')) as number,
          maxTokens: value(query.get('max_tokens')) as number,
        }),
      ),
    }),
  },
  {
    method: 'POST',
    path: /^\/memories$/,
    run: async ({ store, body, space }) => {
      const b = await body();
      const saved = await remember(store, space('write', b), {
        content: b.content as string,
        importance: b.importance as number,
        tags: b.tags as string[],
      });
      return {
        status: saved.action === 'created' ? 201 : 200,
        body: { action: saved.action, memory: restMemoryJson(saved.memory) },
      };
    },
  },
  {
    method: 'GET',
    path: /^\/memories$/,
    run: async ({ store, query, space }) => {
      const filter = Object.fromEntries(
        ['layer', 'kind', 'status', 'tag', 'q', 'sort', 'limit', 'offset'].map((key) => [key, value(query.get(key))]),
      );
      const { rows, total } = await listMemories(store, space('read'), filter);
      return { status: 200, body: { memories: rows.map(restMemoryJson), total } };
    },
  },
  {
    method: 'PATCH',
    path: /^\/memories\/([^/]+)$/,
    run: async ({ store, params, body, space }) => {
      const b = await body();
      const patch = { status: b.status, content: b.content, tags: b.tags, importance: b.importance };
      return {
        status: 200,
        body: restMemoryJson(await updateMemory(store, space('write', b), idParam(params[0]!), patch as never)),
      };
    },
  },
  {
    method: 'POST',
    path: /^\/gc$/,
    run: async ({ store, body, space }) => ({
      status: 200,
      body: restGcJson(await runGc(store, space('write', await body()))),
    }),
  },
  {
    method: 'GET',
    path: /^\/memories\/([^/]+)\/why$/,
    run: async ({ store, params, space }) => ({
      status: 200,
      body: restWhyJson(await explain(store, space('read'), idParam(params[0]!))),
    }),
  },
];

/** `sessionId: must not be empty` -> `session_id: must not be empty`: messages name the REST field. */
export const snakeMessage = (message: string) =>
  message.replace(
    /^([A-Za-z0-9_.]+):/,
    (_, path: string) => `${path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}:`,
  );

/** Reads a request body, refusing more than `limit` bytes (413, counted while streaming). */
export async function readBody(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `body: larger than ${limit} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      size += chunk.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `body: larger than ${limit} bytes`);
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON object body, refusing more than `limit` bytes. */
async function readJsonObject(request: Request, limit: number): Promise<Body> {
  const text = (await readBody(request, limit)).toString('utf8').trim();
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badInput('body: not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badInput('body: expected a JSON object');
  return parsed as Body;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

export const restError = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  json(status, { error: { code, message } }, headers);

/** The REST reply for an error: expected ones with their status and code, anything else a masked 500. */
export function toResponse(error: unknown, log: Logger): Response {
  if (error instanceof HttpError) return restError(error.status, error.code, error.message);
  const expected = expectedOf(error);
  if (expected) {
    const retry =
      expected.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(expected.retryAfterSeconds) };
    return restError(STATUS[expected.code] ?? 400, expected.code, snakeMessage(expected.message), retry);
  }
  log.error({ err: error }, 'REST route failed');
  return restError(500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.');
}

export function restRoutes(options: { runtime: Runtime; log: Logger; bodyLimit: number }): Plugin {
  const { runtime, log, bodyLimit } = options;
  const { store } = runtime;
  return {
    async onRequest({ request, url, endResponse }) {
      const matches = routes
        .map((route) => ({ route, found: route.path.exec(url.pathname) }))
        .filter((m) => m.found !== null);
      if (matches.length === 0) return;
      const match = matches.find((m) => m.route.method === request.method);
      if (!match) {
        const allow = matches.map((m) => m.route.method).join(', ');
        endResponse(restError(405, 'METHOD_NOT_ALLOWED', `${request.method} ${url.pathname}: use ${allow}`, { allow }));
        return;
      }
      try {
        const access = accessOf(request);
        const reply = await match.route.run({
          store,
          runtime,
          params: match.found!.slice(1),
          query: url.searchParams,
          body: () => readJsonObject(request, bodyLimit),
          // A body's user_id wins over the query string's (the POST routes take JSON).
          space: (mode, body) =>
            spaceFor(
              access,
              { ...namedSpace(url.searchParams), ...withoutUndefined(body ? namedSpace(body) : {}) },
              mode,
            ),
        });
        endResponse(json(reply.status, reply.body));
      } catch (error) {
        endResponse(toResponse(error, log));
      }
    },
  };
}
