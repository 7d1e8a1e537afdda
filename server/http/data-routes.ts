// Export and import over HTTP, for `sm export` / `sm import` against a remote server (--url):
// GET /export streams every record as JSON Lines (NDJSON) from one consistent snapshot;
// POST /import takes such a stream and answers the import report. Same access rules as GraphQL.
import { spaceFor } from '../services/tokens.ts';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { exportRecords } from '../core/export/export.ts';
import { importRecords } from '../core/export/import-records.ts';
import { openSnapshot } from '../storage/sqlite/snapshot.ts';
import type { Runtime } from '../services/runtime.ts';
import { accessOf } from './auth.ts';
import { readBody, restError, toResponse } from './rest.ts';

export const EXPORT_PATH = '/export';
export const IMPORT_PATH = '/import';
/** Largest import body: the whole file is read before it is applied (in transactions of 500 records). */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** Records serialised per chunk of the export stream. */
const EXPORT_CHUNK = 500;

const NDJSON = 'application/x-ndjson; charset=utf-8';

/**
 * Whose records: `?user_id=` (the admin may leave it out: every user), a user token's own. The
 * export keeps each record's userId; an import with a user puts every record into that user.
 */
function userOf(request: Request, url: URL, mode: 'read' | 'write'): string | null {
  const access = accessOf(request);
  const named = url.searchParams.get('user_id');
  if (access.admin && named === null) return null;
  return spaceFor(access, { userId: named }, mode).userId;
}

async function exportResponse(runtime: Runtime, log: Logger, userId: string | null): Promise<Response> {
  const snapshot = await openSnapshot(runtime.store);
  const records = exportRecords(snapshot.store, { userId });
  const encoder = new TextEncoder();
  const finish = () => snapshot.close();
  const body = new ReadableStream<Uint8Array>({
    // Pulled as the client reads: a slow client holds the snapshot, not memory.
    async pull(controller) {
      try {
        let text = '';
        for (let i = 0; i < EXPORT_CHUNK; i++) {
          const next = await records.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            finish();
            controller.close();
            return;
          }
          text += `${JSON.stringify(next.value)}\n`;
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        finish();
        log.error({ err: error }, 'export failed');
        controller.error(error);
      }
    },
    cancel: finish,
  });
  const day = new Date(runtime.store.clock.now()).toISOString().slice(0, 10);
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': NDJSON,
      'content-disposition': `attachment; filename="symbiosis-memory-${day}.jsonl"`,
      'cache-control': 'no-store',
    },
  });
}

async function importResponse(
  runtime: Runtime,
  request: Request,
  limit: number,
  userId: string | null,
): Promise<Response> {
  const text = (await readBody(request, limit)).toString('utf8');
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.at(-1) === '') lines.pop();
  const report = await importRecords(runtime.store, lines, { userId });
  return new Response(JSON.stringify(report), {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

export function dataRoutes(options: { runtime: Runtime; log: Logger; importLimit?: number }): Plugin {
  const { runtime, log } = options;
  const routes: Record<string, { method: string; run: (request: Request, url: URL) => Response | Promise<Response> }> =
    {
      [EXPORT_PATH]: {
        method: 'GET',
        run: (request, url) => exportResponse(runtime, log, userOf(request, url, 'read')),
      },
      [IMPORT_PATH]: {
        method: 'POST',
        run: (request, url) =>
          importResponse(runtime, request, options.importLimit ?? MAX_IMPORT_BYTES, userOf(request, url, 'write')),
      },
    };
  return {
    async onRequest({ request, url, endResponse }) {
      const route = routes[url.pathname];
      if (!route) return;
      if (request.method !== route.method) {
        endResponse(
          restError(405, 'METHOD_NOT_ALLOWED', `${request.method} ${url.pathname}: use ${route.method}`, {
            allow: route.method,
          }),
        );
        return;
      }
      try {
        endResponse(await route.run(request, url));
      } catch (error) {
        endResponse(toResponse(error, log));
      }
    },
  };
}
