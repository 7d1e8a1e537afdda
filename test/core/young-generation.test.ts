// The server keeps V8's young generation at 4 MB semi-spaces (server/young-generation.ts). It
// relies on two things V8 does that no API promises: the growth factor is read at each growth,
// and starting a worker thread sets it back to 2. Each case runs in a fresh process (the test's
// own young generation has long grown) that allocates like a busy server: requests of
// short-lived objects, some kept a while, with the event loop turning in between.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = join(import.meta.dirname, '../..', 'server', 'young-generation.ts');
/** Two semi-spaces of 4 MB, as V8 reports the new space's size. */
const CAP_MB = 8.388608;
/** Requests: a few thousand objects each, then back to the event loop; a tenth kept a while. */
const LOAD = `
  const load = async (ms) => {
    let kept = [];
    const until = Date.now() + ms;
    while (Date.now() < until) {
      for (let i = 0; i < 2_000; i++) { const row = { i, text: 'turn ' + i }; if (i % 10 === 0) kept.push(row); }
      if (kept.length > 20_000) kept = [];
      await new Promise((resolve) => setImmediate(resolve));
    }
  };`;

/** The new space's size in MB before and after `body` (which may call load(ms)), in a fresh process. */
function newSpaceAround(body: string): { before: number; after: number } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    const { holdYoungGeneration, afterWorkerStart } = await import(${JSON.stringify(MODULE)});
    const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1e6;
    ${LOAD}
    const before = newSpace();
    ${body}
    console.log(JSON.stringify({ before, after: newSpace() }));
    process.exit(0);`;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(output) as { before: number; after: number };
}

describe('the young generation of a long-running process', () => {
  it('grows to 16 MB semi-spaces when nothing holds it (what the hold is for)', () => {
    const { before, after } = newSpaceAround('await load(1500);');
    expect(before).toBeLessThan(16);
    expect(after).toBeGreaterThan(32);
  });

  it('grows to 4 MB semi-spaces and no further once held', () => {
    const { before, after } = newSpaceAround('holdYoungGeneration(); await load(1500);');
    expect(before).toBeLessThan(CAP_MB);
    expect(after).toBe(CAP_MB);
  });

  it('stays at the cap after a worker thread starts, which lets it grow again', () => {
    const { after } = newSpaceAround(`
      holdYoungGeneration();
      await load(1000);
      const worker = new Worker('setTimeout(() => {}, 60_000)', { eval: true });
      afterWorkerStart(worker);
      await new Promise((resolve) => worker.once('online', resolve));
      worker.unref();
      await load(1500);`);
    expect(after).toBe(CAP_MB);
  });
});
