import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv, resolveConfig } from '../../server/core/kernel/config.ts';
import { meta } from '../../drizzle/schema.ts';
import { closeStore, openStore } from '../../server/storage/sqlite/open.ts';

describe('config', () => {
  it('has the documented defaults', () => {
    const config = resolveConfig([]);
    expect(config.short_term.size).toBe(100);
    expect(config.mid).toMatchObject({ capacity: 500, promote_hits: 3, demote_age_days: 30 });
    expect(config.scoring).toEqual({ w_freq: 1, w_recency: 1, w_importance: 2, lambda: 0.05 });
    expect(config.extractor.mode).toBe('hybrid');
    expect(config.llm).toMatchObject({ provider: 'openai', api_key_env: 'OPENAI_API_KEY', timeout_s: 8 });
    expect(config.fts.enabled).toBe(true);
    expect(config.server).toEqual({ host: '127.0.0.1', port: 8787, max_requests: 256 });
  });

  it('layers defaults < config.json < meta table < environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-config-'));
    const path = join(dir, 'memory.db');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ short_term: { size: 10 }, mid: { capacity: 7 }, gc: { mode: 'delete' } }),
    );
    const first = await openStore({ path, env: {} });
    expect(first.config.short_term.size).toBe(10);
    await first.db
      .insert(meta)
      .values({ key: 'config', value: { mid: { capacity: 9 }, gc: { mode: 'archive' } } })
      .run();
    await closeStore(first);
    const second = await openStore({ path, env: { SM_CONFIG__GC__MODE: 'delete', SM_CONFIG__FTS__ENABLED: 'false' } });
    expect(second.config.short_term.size).toBe(10); // file
    expect(second.config.mid.capacity).toBe(9); // meta beats file
    expect(second.config.gc.mode).toBe('delete'); // environment beats meta
    expect(second.config.fts.enabled).toBe(false); // env values are read as JSON
    expect(second.config.mid.promote_hits).toBe(3); // default
    await closeStore(second);
  });

  it('names the key, the reason and the source of an invalid value', () => {
    expect(() => resolveConfig(configFromEnv({ SM_CONFIG__SHORT_TERM__SIZE: '-4' }))).toThrowError(
      /short_term\.size \(from environment SM_CONFIG__SHORT_TERM__SIZE\): .*>0/,
    );
    expect(() => resolveConfig([{ source: '/x/config.json', values: { scoring: { lamda: 1 } } }])).toThrowError(
      'Invalid config scoring.lamda (from /x/config.json)',
    );
    expect(() => resolveConfig([{ source: 'f', values: { gc: { mode: 'nuke' } } }])).toThrow(ConfigError);
  });

  it('refuses a bad config before creating or touching the database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-config-'));
    writeFileSync(join(dir, 'config.json'), '{ not json');
    await expect(openStore({ path: join(dir, 'memory.db'), env: {} })).rejects.toThrowError(/not valid JSON/);
    await expect(
      openStore({ path: join(dir, 'other', 'memory.db'), env: { SM_CONFIG__MID__CAPACITY: '0' } }),
    ).rejects.toThrowError(/mid\.capacity/);
    expect(existsSync(join(dir, 'memory.db'))).toBe(false);
    expect(existsSync(join(dir, 'other'))).toBe(false);
  });
});
