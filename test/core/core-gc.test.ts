import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it } from 'vitest';
import { explain } from '../../server/core/memory/explain.ts';
import { runGc } from '../../server/core/memory/gc.ts';
import { claimJobs, completeJob, enqueueJob, failJob, JobType, listJobs } from '../../server/core/jobs/jobs.ts';
import { getMemory, remember } from '../../server/core/memory/memories.ts';
import { confirmMemory } from '../../server/core/memory/memory-edits.ts';
import { listMemories } from '../../server/core/memory/memory-list.ts';
import { testStore } from '../helpers/store.ts';

describe('gc', () => {
  it('rescores every active memory', async () => {
    const { store, advanceDays } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User likes tea' });
    expect(memory.score).toBe(1);
    advanceDays(4);
    const report = await runGc(store);
    expect(report.scored).toBe(1);
    expect((await getMemory(store, memory.id))!.score).toBeCloseTo(Math.exp(-0.2), 12);
  });

  it('promotes mid -> long on hits >= 3 seen within 7 days, and not otherwise', async () => {
    const { store, advanceDays } = await testStore();
    const hot = (await remember(store, DEFAULT_SPACE, { content: 'User lives in Lisbon' })).memory;
    const cold = (await remember(store, DEFAULT_SPACE, { content: 'User owns a cat' })).memory;
    for (let i = 0; i < 3; i++) await remember(store, DEFAULT_SPACE, { content: 'user lives in lisbon.' });
    for (let i = 0; i < 3; i++) await remember(store, DEFAULT_SPACE, { content: 'User owns a cat' });
    advanceDays(8); // cold was last seen 8 days ago...
    await remember(store, DEFAULT_SPACE, { content: 'User lives in Lisbon' }); // ...hot is seen again now
    const report = await runGc(store);
    expect(report.promoted).toBe(1);
    expect((await getMemory(store, hot.id))!.layer).toBe('long');
    expect((await getMemory(store, cold.id))!.layer).toBe('mid');
    expect((await explain(store, DEFAULT_SPACE, hot.id)).decisions[0]).toMatchObject({ action: 'promoted' });
  });

  it('archives a mid memory whose score fell below 0.5, with the reason in explain', async () => {
    const { store, advanceDays } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User had pasta for lunch' });
    advanceDays(15); // exp(-0.75) = 0.47
    const report = await runGc(store);
    expect(report).toMatchObject({ archived: 1, byReason: { low_score: 1, expired: 0, over_capacity: 0 } });
    const after = (await getMemory(store, memory.id))!;
    expect(after.status).toBe('archived');
    expect(after.validUntil).not.toBeNull();
    expect((await explain(store, DEFAULT_SPACE, memory.id)).decisions[0]).toMatchObject({
      action: 'archived',
      detail: { reason: 'low_score' },
    });
    expect((await listMemories(store, DEFAULT_SPACE)).total).toBe(0);
    expect((await listMemories(store, DEFAULT_SPACE, { status: 'archived' })).total).toBe(1);
  });

  it('archives a mid memory older than 30 days even with a good score', async () => {
    const { store, advanceDays } = await testStore();
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User prefers window seats', importance: 1 });
    advanceDays(31);
    const report = await runGc(store);
    expect(report.byReason.expired).toBe(1);
    expect((await getMemory(store, memory.id))!.status).toBe('archived');
  });

  it('archives the lowest-scored mid memories over capacity', async () => {
    const { store, advanceDays } = await testStore({ mid: { capacity: 2 } });
    const oldest = (await remember(store, DEFAULT_SPACE, { content: 'fact one' })).memory;
    advanceDays(1);
    const middle = (await remember(store, DEFAULT_SPACE, { content: 'fact two' })).memory;
    advanceDays(1);
    const newest = (await remember(store, DEFAULT_SPACE, { content: 'fact three' })).memory;
    const report = await runGc(store);
    expect(report.byReason.over_capacity).toBe(1);
    expect((await getMemory(store, oldest.id))!.status).toBe('archived');
    expect((await getMemory(store, middle.id))!.status).toBe('active');
    expect((await getMemory(store, newest.id))!.status).toBe('active');
  });

  it('deletes instead of archiving under gc.mode=delete; explain still tells what happened', async () => {
    const { store, advanceDays } = await testStore({ gc: { mode: 'delete' } });
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User watched a film', importance: 1 });
    advanceDays(31);
    const report = await runGc(store);
    expect(report).toMatchObject({ mode: 'delete', deleted: 1, archived: 0 });
    expect(await getMemory(store, memory.id)).toBeUndefined();
    const why = await explain(store, DEFAULT_SPACE, memory.id);
    expect(why.status).toBe('deleted');
    expect(why.decisions[0]).toMatchObject({ action: 'deleted', detail: { reason: 'expired' } });
  });

  it('leaves protected memories alone', async () => {
    const { store, advanceDays } = await testStore({ mid: { capacity: 1 } });
    const confirmed = (await remember(store, DEFAULT_SPACE, { content: 'User is allergic to peanuts' })).memory;
    await confirmMemory(store, DEFAULT_SPACE, confirmed.id);
    await remember(store, DEFAULT_SPACE, { content: 'another fact' });
    advanceDays(40);
    await runGc(store);
    expect((await getMemory(store, confirmed.id))!.status).toBe('active');
  });

  it('purges archived rows after gc.purge_archived_after_days', async () => {
    const { store, advanceDays } = await testStore({ gc: { purge_archived_after_days: 10 } });
    const { memory } = await remember(store, DEFAULT_SPACE, { content: 'User visited Rome' });
    advanceDays(31);
    expect((await runGc(store)).archived).toBe(1);
    advanceDays(5);
    expect((await runGc(store)).purged).toBe(0);
    advanceDays(6);
    expect((await runGc(store)).purged).toBe(1);
    expect(await getMemory(store, memory.id)).toBeUndefined();
  });
});

describe('gc and the job queue', () => {
  it('clears finished jobs older than a week and keeps dead ones', async () => {
    const { store, advanceDays } = await testStore();
    const done = await enqueueJob(store, JobType.Consolidate, { sessionId: 'a' });
    const dead = await enqueueJob(store, JobType.Consolidate, { sessionId: 'b' }, { maxAttempts: 1 });
    for (const job of await claimJobs(store, 2)) {
      if (job.id === done.id) await completeJob(store, job.id);
      else await failJob(store, job, 'boom');
    }
    advanceDays(6);
    expect((await runGc(store)).jobsPurged).toBe(0);
    advanceDays(2);
    expect((await runGc(store)).jobsPurged).toBe(1);
    expect((await listJobs(store)).map((j) => [j.id, j.status])).toEqual([[dead.id, 'dead']]);
  });
});
