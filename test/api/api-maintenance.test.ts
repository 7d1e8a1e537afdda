// Maintenance over the API: consolidating a session, every maintenance task on demand, the job
// queue (list, run now) and its counts in stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConsolidationStatus,
  JobStatus,
  MaintenanceTask,
  MemoryKind,
  ReflectionPath,
  Role,
  type SymbiosisClient,
} from '../../client/src/index.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer({ config: { extractor: { mode: 'heuristic' } } });
  client = server.client();
});
afterAll(() => server.close());

const say = (sessionId: string, text: string, at?: string) =>
  client.addTurn({ input: { sessionId, role: Role.User, text, at } });

describe('consolidateSession', () => {
  it('consolidates a session once, then skips it; NOT_FOUND for an unknown session', async () => {
    await say('c1', 'My name is Dana and I like green tea');
    await client.addTurn({ input: { sessionId: 'c1', role: Role.Assistant, text: 'Noted, Dana.' } });
    await say('c1', 'I live in Lisbon', undefined);

    const { consolidateSession: report } = await client.consolidateSession({ sessionId: 'c1' });
    expect(report).toMatchObject({
      sessionId: 'c1',
      status: ConsolidationStatus.Completed,
      detail: 'heuristic',
      turns: 3,
      pages: 1,
    });
    // addTurn already extracted these facts from the same turns: a re-read changes nothing.
    expect(report.created + report.merged + report.superseded + report.unchanged).toBeGreaterThanOrEqual(3);
    expect(report.unchanged).toBeGreaterThanOrEqual(3);
    const { session } = await client.session({ id: 'c1' });
    expect(session?.consolidatedAt).toMatch(/Z$/);
    expect(session?.turnCount).toBe(3);

    const again = (await client.consolidateSession({ sessionId: 'c1' })).consolidateSession;
    expect(again).toMatchObject({ status: ConsolidationStatus.Skipped, detail: 'already consolidated', turns: 0 });
    expect((await failure(client.consolidateSession({ sessionId: 'no-such-session' }))).code).toBe('NOT_FOUND');
  });
});

describe('runMaintenance', () => {
  it('CONSOLIDATE catches up on idle sessions', async () => {
    await say('old-1', 'I like sailing', '2025-01-01T10:00:00.000Z');
    await say('old-2', 'My favourite colour is blue', '2025-01-02T10:00:00.000Z');
    const { runMaintenance: report } = await client.runMaintenance({ task: MaintenanceTask.Consolidate });
    expect(report.task).toBe(MaintenanceTask.Consolidate);
    expect(Date.parse(report.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.startedAt));
    expect(report).toMatchObject({ enrichment: null, decay: null, reflection: null });
    expect(report.consolidation?.failed).toEqual([]);
    const ids = report.consolidation!.sessions.map((s) => s.sessionId);
    // Oldest activity first; the session active just now (c1 is done, not idle ones) is left alone.
    expect(ids.slice(0, 2)).toEqual(['old-1', 'old-2']);
    expect(report.consolidation!.sessions.every((s) => s.status === ConsolidationStatus.Completed)).toBe(true);
    const rerun = (await client.runMaintenance({ task: MaintenanceTask.Consolidate })).runMaintenance;
    expect(rerun.consolidation?.sessions.map((s) => s.sessionId)).not.toContain('old-1');
  });

  it('DECAY reports what it scanned', async () => {
    // A plain fact: the turns above are preferences and profile facts, protected from decay (docs/memory-kinds.md).
    await say('decay', 'My car is a red Fiat');
    const { runMaintenance: report } = await client.runMaintenance({ task: MaintenanceTask.Decay });
    expect(report).toMatchObject({
      task: MaintenanceTask.Decay,
      enrichment: null,
      consolidation: null,
      reflection: null,
    });
    expect(report.decay?.scanned).toBeGreaterThan(0);
    expect(report.decay).toMatchObject({ archived: 0, threshold: 0.05 });
  });

  it("REFLECT writes a template reflection from the week's facts (no LLM), then waits", async () => {
    for (const fact of ['User plays chess on Sundays', 'User is learning Portuguese', 'User runs 5 km every morning']) {
      await client.remember({ input: { content: fact } });
    }
    const { runMaintenance: report } = await client.runMaintenance({ task: MaintenanceTask.Reflect });
    expect(report).toMatchObject({ task: MaintenanceTask.Reflect, enrichment: null, consolidation: null, decay: null });
    expect(report.reflection).toMatchObject({
      created: true,
      path: ReflectionPath.Template,
      reflection: { kind: MemoryKind.Reflection, layer: 'LONG' },
    });
    expect(report.reflection?.reason).toMatch(/new facts/);
    const second = (await client.runMaintenance({ task: MaintenanceTask.Reflect })).runMaintenance;
    expect(second.reflection).toMatchObject({ created: false, path: null, reflection: null });
    expect(second.reflection?.reason).toMatch(/last reflection/);
  });

  it('ENRICH runs entity enrichment (compromise, no LLM)', async () => {
    const { runMaintenance: report } = await client.runMaintenance({ task: MaintenanceTask.Enrich });
    expect(report).toMatchObject({ task: MaintenanceTask.Enrich, consolidation: null, decay: null, reflection: null });
    expect(report.enrichment).toMatchObject({ skipped: false });
    expect(report.enrichment!.memories + report.enrichment!.turns).toBeGreaterThanOrEqual(0);
    expect(report.enrichment!.reason).not.toBe('');
  });

  it('refuses an unknown task', async () => {
    const error = await failure(client.runMaintenance({ task: 'SLEEP' as MaintenanceTask }));
    expect(error.message).toMatch(/"SLEEP" does not exist in "MaintenanceTask"/);
  });
});

describe('jobs', () => {
  it('lists queued jobs with their ids only, runs them now, and counts them in stats', async () => {
    const { addTurn } = await say('j1', 'Yesterday I visited Bruno Diaz in Madrid');
    const pending = (await client.jobs({ status: JobStatus.Pending })).jobs;
    const ner = pending.find((j) => j.type === 'ner.accurate' && j.turnId === addTurn.turn.id);
    expect(ner).toMatchObject({
      status: JobStatus.Pending,
      attempts: 0,
      maxAttempts: 5,
      lastError: null,
      sessionId: null,
    });
    expect(ner?.runAt).toMatch(/Z$/);
    const consolidation = pending.find((j) => j.type === 'session.consolidate');
    if (consolidation) expect(consolidation.sessionId).toEqual(expect.any(String));
    const before = (await client.stats()).stats.jobs;
    expect(before.pending).toBe(pending.length);

    // Only ids leave the payload: there is no field to read it through.
    const raw = await server.graphql('{ jobs { payload } }');
    expect(raw.body.errors?.[0]?.message).toMatch(/Cannot query field "payload"/);

    const { runJobs } = await client.runJobs();
    expect(runJobs.ran).toBeGreaterThanOrEqual(1);
    expect(runJobs).toMatchObject({ failed: 0, dead: 0 });
    expect(runJobs.done).toBe(runJobs.ran);
    const after = (await client.stats()).stats.jobs;
    expect(after.pending).toBe(0);
    expect(after.done).toBe(before.done + runJobs.done);
    const done = (await client.jobs({ status: JobStatus.Done, first: 500 })).jobs;
    expect(done.map((j) => j.id)).toContain(ner!.id);
    // Newest first, limited.
    const two = (await client.jobs({ first: 2 })).jobs;
    expect(two).toHaveLength(2);
    expect(two[0]!.id).toBeGreaterThan(two[1]!.id);
    expect((await client.runJobs()).runJobs).toEqual({ ran: 0, done: 0, failed: 0, dead: 0 });
    expect((await failure(client.jobs({ first: 0 }))).code).toBe('BAD_USER_INPUT');
  });
});
