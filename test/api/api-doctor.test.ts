// doctor over the API: database checks, and the LLM and embedding endpoints probed for real
// (the openai client against the local OpenAI-compatible test server, and against a refused port).
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, type DoctorQuery } from '../../client/src/index.ts';
import { startOpenAiServer } from '../helpers/openai-server.ts';
import { startServer, type TestServer } from '../helpers/api-server.ts';

type Check = DoctorQuery['doctor'][number];

let openai: Awaited<ReturnType<typeof startOpenAiServer>>;
const servers: TestServer[] = [];

/** A loopback port nothing listens on (connections are refused). */
async function refusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function doctorOf(config: Record<string, unknown>) {
  const server = await startServer({ config: { extractor: { mode: 'heuristic' }, ...config } });
  servers.push(server);
  const { doctor } = await server.client().doctor();
  return {
    server,
    checks: Object.fromEntries(doctor.map((c) => [c.name, c])) as Record<string, Check>,
    names: doctor.map((c) => c.name),
  };
}

beforeAll(async () => {
  openai = await startOpenAiServer({ reply: 'ok' }, { native: 64 });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await openai.close();
});

describe('doctor', () => {
  it('passes on a healthy database with no providers configured', async () => {
    const { checks, names } = await doctorOf({});
    expect(names).toEqual([
      'database',
      'fts',
      'sqlite-vec',
      'integrity',
      'llm',
      'embedding',
      'embedding-lock',
      'semantic',
      'jobs',
    ]);
    expect(Object.values(checks).every((c) => c.ok)).toBe(true);
    expect(checks.fts).toMatchObject({ ok: true, detail: 'FTS5 available and enabled', hint: null });
    // The test server's file was named explicitly: doctor says which file, and where the default is.
    expect(checks.database?.detail).toMatch(
      /\.db, \d+\.\d MB \(chosen by --db or SM_DB; the default is .*symbiosis-memory\/symbiosis\.db\)$/,
    );
    expect(checks['sqlite-vec']?.detail).toMatch(/^sqlite-vec v?[\d.]+ loaded$/);
    expect(checks.integrity?.detail).toBe('PRAGMA quick_check: ok');
    expect(checks.llm?.detail).toMatch(/^not configured/);
    expect(checks.embedding?.detail).toMatch(/^not configured/);
    expect(checks['embedding-lock']?.detail).toBe('no vectors stored');
  });

  it('reaches the configured LLM and embedding endpoints (1-token completion, one embedding of the configured size)', async () => {
    const before = openai.requests.length;
    const { server, checks } = await doctorOf({
      llm: { endpoint: openai.url, model: 'test-model', timeout_s: 5 },
      embedding: { endpoint: openai.url, model: 'test-embed', dimensions: 32 },
    });
    expect(checks.llm).toMatchObject({ ok: true, hint: null });
    expect(checks.llm?.detail).toMatch(/^model "test-model" at http:\/\/127\.0\.0\.1:\d+\/v1 answered in \d+ ms$/);
    expect(checks.embedding).toMatchObject({ ok: true, detail: expect.stringMatching(/returned 32 dimensions$/) });
    expect(checks['embedding-lock']).toMatchObject({
      ok: true,
      detail: 'stored vectors: 32 dimensions of "test-embed", as configured',
    });
    const sent = openai.requests.slice(before);
    const completion = sent.find((r) => r.path.endsWith('/chat/completions'));
    expect(completion?.body).toMatchObject({ model: 'test-model', max_tokens: 1 });
    expect(sent.some((r) => r.path.endsWith('/embeddings') && r.body.model === 'test-embed')).toBe(true);

    // Vectors stored by another model (as after a model change): vector search is off, and doctor says how to fix it.
    server.store.sqlite
      .prepare("update meta set value = ? where key = 'embedding'")
      .run(JSON.stringify({ dimensions: 16, model: 'old-embed' }));
    const after = Object.fromEntries((await server.client().doctor()).doctor.map((c) => [c.name, c]));
    expect(after['embedding-lock']).toMatchObject({ ok: false, hint: expect.stringMatching(/sm reembed --reset/) });
    expect(after['embedding-lock']?.detail).toBe(
      'stored vectors: 16 dimensions of "old-embed", but config says 32 dimensions of "test-embed": vector search is off',
    );
  });

  it('reports endpoints that refuse connections, with a hint, within the timeout', async () => {
    const port = await refusedPort();
    const started = Date.now();
    const { checks } = await doctorOf({
      llm: { endpoint: `http://127.0.0.1:${port}/v1`, model: 'test-model', timeout_s: 2 },
      embedding: { endpoint: `http://127.0.0.1:${port}/v1`, model: 'test-embed', dimensions: 32 },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(checks.llm).toMatchObject({
      ok: false,
      detail: `model "test-model" at http://127.0.0.1:${port}/v1: connection failed`,
    });
    expect(checks.llm?.hint).toMatch(/llm\.endpoint/);
    expect(checks.embedding).toMatchObject({
      ok: false,
      detail: `model "test-embed" at http://127.0.0.1:${port}/v1: connection failed`,
    });
    expect(checks.embedding?.hint).toMatch(/embedding\.endpoint/);
    // The database checks do not depend on the network.
    expect(checks.integrity?.ok).toBe(true);
  });

  it('reports an LLM answering with an error, an embedding of the wrong size, and pending jobs that nothing runs', async () => {
    const small = await startOpenAiServer(
      { status: 500, message: 'model overloaded' },
      { native: 16, honourDimensions: false },
    );
    try {
      const { server, checks } = await doctorOf({
        llm: { endpoint: small.url, model: 'test-model' },
        embedding: { endpoint: small.url, model: 'tiny-embed', dimensions: 32 },
      });
      expect(checks.llm).toMatchObject({ ok: false, detail: expect.stringMatching(/: HTTP 500$/) });
      expect(checks.embedding).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/16 dimensions, fewer than the configured 32/),
      });

      await server.client().addTurn({
        input: { sessionId: 'd', role: Role.User, text: 'I met Carla in Rome', at: '2025-01-01T00:00:00.000Z' },
      });
      server.store.sqlite.prepare("update jobs set run_at = run_at - 3600000 where status = 'pending'").run();
      const jobs = (await server.client().doctor()).doctor.find((c) => c.name === 'jobs')!;
      expect(jobs).toMatchObject({ ok: false, hint: expect.stringMatching(/runJobs/) });
      expect(jobs.detail).toMatch(/^\d+ pending \(\d+ overdue/);
    } finally {
      await small.close();
    }
  });
});
