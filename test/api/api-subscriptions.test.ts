// Subscriptions over graphql-ws, on the same port and path as HTTP, through the typed client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryAction, Role, SymbiosisClientError, type SymbiosisClient } from '../../client/src/index.ts';
import { firstEvent, startServer, type TestServer } from '../helpers/api-server.ts';

let server: TestServer;
let client: SymbiosisClient;

beforeAll(async () => {
  server = await startServer();
  client = server.client();
});
afterAll(() => server.close());

describe('subscriptions', () => {
  it('memoryEvents delivers a created memory', async () => {
    const events = client.memoryEvents({ actions: [MemoryAction.Created] })[Symbol.asyncIterator]();
    const event = await firstEvent(events, (i) => client.remember({ input: { content: `Probe fact ${i}` } }));
    expect(event.memoryEvents).toMatchObject({
      action: 'CREATED',
      memory: { content: expect.stringMatching(/^Probe fact \d+$/) },
    });
    expect(event.memoryEvents.memoryId).toBe(event.memoryEvents.memory?.id);
    expect(event.memoryEvents.at).toMatch(/Z$/);
    await events.return?.();
  });

  it('memoryEvents delivers a deleted memory as it was', async () => {
    const events = client.memoryEvents({ actions: [MemoryAction.Deleted] })[Symbol.asyncIterator]();
    const event = await firstEvent(events, async (i) => {
      const { remember } = await client.remember({ input: { content: `Doomed fact ${i}` } });
      await client.forget({ id: remember.memory.id });
    });
    expect(event.memoryEvents).toMatchObject({
      action: 'DELETED',
      detail: { reason: 'forgotten' },
      memory: { content: expect.stringMatching(/^Doomed fact/) },
    });
    await events.return?.();
  });

  it('turnAdded delivers turns of the watched session only', async () => {
    const turns = client.turnAdded({ sessionId: 'watched' })[Symbol.asyncIterator]();
    const event = await firstEvent(turns, async (i) => {
      await client.addTurn({
        input: { sessionId: 'elsewhere', role: Role.User, text: `other ${i}`, autoExtract: false },
      });
      await client.addTurn({
        input: { sessionId: 'watched', role: Role.User, text: `watched ${i}`, autoExtract: false },
      });
    });
    expect(event.turnAdded).toMatchObject({
      sessionId: 'watched',
      role: 'USER',
      text: expect.stringMatching(/^watched \d+$/),
    });
    await turns.return?.();
  });

  it('consolidationEvents delivers STARTED then COMPLETED with the report, for the watched session only', async () => {
    const events = client.consolidationEvents({ sessionId: 'consolidated' })[Symbol.asyncIterator]();
    const started = await firstEvent(events, async (i) => {
      // A new turn reopens a session, so each attempt consolidates again.
      await client.addTurn({ input: { sessionId: 'unwatched', role: Role.User, text: `I like plums ${i}` } });
      await client.consolidateSession({ sessionId: 'unwatched' });
      await client.addTurn({
        input: { sessionId: 'consolidated', role: Role.User, text: `My favourite fruit is mango ${i}` },
      });
      await client.consolidateSession({ sessionId: 'consolidated' });
    });
    expect(started.consolidationEvents).toMatchObject({
      sessionId: 'consolidated',
      status: 'STARTED',
      report: null,
      reason: null,
    });
    const completed = (await events.next()).value!;
    expect(completed.consolidationEvents).toMatchObject({
      sessionId: 'consolidated',
      status: 'COMPLETED',
      reason: null,
      report: { sessionId: 'consolidated', status: 'COMPLETED', detail: 'heuristic', pages: 1 },
    });
    const report = completed.consolidationEvents.report!;
    expect(report.turns).toBeGreaterThanOrEqual(1);
    expect(report.created + report.merged + report.superseded + report.unchanged).toBeGreaterThanOrEqual(1);
    expect(Date.parse(completed.consolidationEvents.at)).toBeGreaterThanOrEqual(
      Date.parse(started.consolidationEvents.at),
    );
    await events.return?.();
  });

  it('a subscription query with an error is refused with the error', async () => {
    const bad = client.memoryEvents({ actions: ['NOPE' as MemoryAction] })[Symbol.asyncIterator]();
    const error = await bad.next().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SymbiosisClientError);
    expect((error as Error).message).toMatch(/"NOPE" does not exist in "MemoryAction"/);
  });
});
