// Background WAL checkpoints (openStore backgroundCheckpoints, used by the server): commits
// leave checkpointing to a worker thread, which copies the WAL back into the database file.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';
import { ingestTurn } from '../../server/services/ingest.ts';
import { createRuntime } from '../../server/services/runtime.ts';

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'sm-ckpt-')), 'ckpt.db');
const autocheckpoint = (store: Awaited<ReturnType<typeof openStore>>) =>
  store.sqlite.pragma('wal_autocheckpoint', { simple: true });

describe('background checkpoints', () => {
  it('copy the WAL back on a worker thread while the main connection never checkpoints; the thread stops with the store', async () => {
    const path = tempDb();
    const store = await openStore({
      path,
      env: {},
      config: { extractor: { mode: 'heuristic' } },
      backgroundCheckpoints: true,
    });
    // The main connection checkpoints only as a safety net, far past what this test writes.
    expect(autocheckpoint(store)).toBe(10_000);
    const runtime = await createRuntime(store, {});
    const fileSize = statSync(path).size;
    for (let i = 0; i < 40; i++)
      await ingestTurn(runtime, DEFAULT_SPACE, {
        sessionId: 's1',
        role: 'user',
        name: 'Ana',
        text: `I visited museum number ${i} in Lisbon`,
      });
    // New pages reach the database file only through a checkpoint, and this connection runs none.
    await expect.poll(() => statSync(path).size, { timeout: 10_000, interval: 50 }).toBeGreaterThan(fileSize);
    await closeStore(store);
    const reopened = await openStore({ path, env: {} });
    expect(autocheckpoint(reopened)).toBe(1000);
    expect((reopened.sqlite.prepare('select count(*) as n from turns').get() as { n: number }).n).toBe(40);
    await closeStore(reopened);
  });

  it('is off by default, and never on for an in-memory store', async () => {
    const path = tempDb();
    const plain = await openStore({ path, env: {} });
    expect(autocheckpoint(plain)).toBe(1000);
    await closeStore(plain);
    const memory = await openStore({ path: ':memory:', env: {}, backgroundCheckpoints: true });
    expect(autocheckpoint(memory)).toBe(1000);
    await closeStore(memory);
  });
});
