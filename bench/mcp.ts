// MCP latency: search_memory through the official SDK client over stdio (`sm mcp`, spawned on a
// database of N synthetic turns + facts, as bench/scale.ts builds them), beside search() in
// process on the same file in the same run.
//   npm run bench:mcp -- [--json] [--size 10000] [--samples 300]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { search } from '../server/core/search/index.ts';
import { DEFAULT_SPACE } from '../server/core/kernel/space.ts';
import { closeStore, openStore } from '../server/storage/sqlite/open.ts';
import { optimizeSearchIndexes } from '../server/storage/sqlite/search-index.ts';
import { runMain } from './run-main.ts';
import { build } from './scale-store.ts';
import { rng } from './synthetic.ts';
import { percentile, round } from './stats.ts';

const SM = fileURLToPath(new URL('../bin/sm.js', import.meta.url));
const NAMES = ['Caroline', 'Melanie', 'John', 'Maria', 'Gina'];

export async function benchMcp(size: number, samples: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-mcp-'));
  const path = join(dir, 'mcp.db');
  const store = await openStore({ path, env: {} });
  const random = rng(11);
  const text = build(store, size, random);
  optimizeSearchIndexes(store.sqlite);
  const queries = Array.from(
    { length: samples },
    () => `What did ${NAMES[Math.floor(random() * NAMES.length)]} say about ${text.sentence(2, 5)}?`,
  );
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  for (const query of queries.slice(0, 20)) await search(store, DEFAULT_SPACE, { query });
  const inProcess: number[] = [];
  for (const query of queries) inProcess.push(await time(() => search(store, DEFAULT_SPACE, { query, limit: 10 })));
  await closeStore(store);

  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SM, '--db', path, 'mcp'],
      env: { ...process.env, SM_LOG_LEVEL: 'error' } as Record<string, string>,
    }),
  );
  for (const query of queries.slice(0, 20)) await client.callTool({ name: 'search_memory', arguments: { query } });
  const overStdio: number[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    await client.callTool({ name: 'search_memory', arguments: { query, limit: 10 } });
    overStdio.push(performance.now() - t0);
  }
  await client.close();
  rmSync(dir, { recursive: true, force: true });
  const stat = (values: number[]) => ({
    p50: round(percentile(values, 50), 2),
    p95: round(percentile(values, 95), 2),
    p99: round(percentile(values, 99), 2),
  });
  return {
    size,
    samples,
    machine: { cores: availableParallelism(), loadAverage: loadavg().map((n) => round(n, 2)) },
    searchMs: stat(inProcess),
    searchMemoryOverStdioMs: stat(overStdio),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      size: { type: 'string', default: '10000' },
      samples: { type: 'string', default: '300' },
    },
  });
  const size = Number(values.size);
  const samples = Number(values.samples);
  if (!Number.isInteger(size) || size < 1 || !Number.isInteger(samples) || samples < 20) {
    process.stderr.write('usage: npm run bench:mcp -- [--json] [--size 10000] [--samples 300]\n');
    process.exit(2);
  }
  const result = await benchMcp(size, samples);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const row = (name: string, s: { p50: number; p95: number; p99: number }) =>
    `${name.padEnd(34)}${s.p50} / ${s.p95} / ${s.p99}`;
  process.stdout.write(
    `${[
      `${size} turns + facts, ${samples} queries; ${result.machine.cores} cores, load average ${result.machine.loadAverage.join(' ')}`,
      `${'path'.padEnd(34)}p50 / p95 / p99 ms`,
      row('search() in process', result.searchMs),
      row('search_memory over MCP stdio', result.searchMemoryOverStdioMs),
    ].join('\n')}\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runMain(main);
