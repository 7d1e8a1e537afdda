// Config over the API: the effective config (no secrets), setConfig validated against every
// layer (a bad key or value is BAD_USER_INPUT and changes nothing), persisted in the meta table,
// applied at once outside the restart sections; unsetConfig goes back to the layers below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SymbiosisClient } from '../../client/src/index.ts';
import { readMetaConfig } from '../../server/storage/config-layers.ts';
import { failure, startServer, type TestServer } from '../helpers/api-server.ts';

const SECRET_ENV = 'SM_TEST_CONFIG_SECRET_KEY';
const SECRET = 'sk-this-must-never-leave-the-process';

let server: TestServer;
let client: SymbiosisClient;

type Config = Record<string, Record<string, unknown>>;

beforeAll(async () => {
  process.env[SECRET_ENV] = SECRET;
  server = await startServer({
    config: {
      extractor: { mode: 'heuristic' },
      llm: { api_key_env: SECRET_ENV, endpoint: 'http://user:hunter2@127.0.0.1:9/v1' },
    },
  });
  client = server.client();
});
afterAll(async () => {
  delete process.env[SECRET_ENV];
  await server.close();
});

const current = async () => (await client.config()).config as Config;

describe('config', () => {
  it('reads the effective config: every section, key names only, no secret values', async () => {
    const config = await current();
    expect(config.scoring).toEqual({ w_freq: 1, w_recency: 1, w_importance: 2, lambda: 0.05 });
    expect(config.extractor?.mode).toBe('heuristic');
    expect(config.llm?.api_key_env).toBe(SECRET_ENV);
    expect(Object.keys(config)).toEqual(
      expect.arrayContaining(['mid', 'gc', 'decay', 'llm', 'embedding', 'server', 'schedule', 'context']),
    );
    const text = JSON.stringify(config);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hunter2');
    expect(config.llm?.endpoint).toBe('http://***:***@127.0.0.1:9/v1');
  });

  it('sets a key: validated, saved in the meta table, applied at once', async () => {
    const { setConfig } = await client.setConfig({ key: 'scoring.w_freq', value: 2.5 });
    expect((setConfig as Config).scoring?.w_freq).toBe(2.5);
    expect((await current()).scoring?.w_freq).toBe(2.5);
    expect(await readMetaConfig(server.store.db)).toEqual({ scoring: { w_freq: 2.5 } });
    // Read at use: the running store has it already.
    expect(server.store.config.scoring.w_freq).toBe(2.5);

    await client.setConfig({ key: 'gc', value: { mode: 'delete' } });
    expect(server.store.config.gc).toEqual({ mode: 'delete', purge_archived_after_days: null });
    expect((await client.gc()).gc.mode).toBe('DELETE');
    await client.setConfig({ key: 'gc.mode', value: 'archive' });
  });

  it('restart sections are saved and shown, but the running server keeps its value until restart', async () => {
    const before = server.store.config.llm.model;
    const { setConfig } = await client.setConfig({ key: 'llm.model', value: 'some-model' });
    expect((setConfig as Config).llm?.model).toBe('some-model');
    expect(server.store.config.llm.model).toBe(before);
    await client.unsetConfig({ key: 'llm.model' });
  });

  it('a bad key or value is BAD_USER_INPUT naming the key, and nothing changes', async () => {
    const before = await current();
    const meta = await readMetaConfig(server.store.db);
    const running = structuredClone(server.store.config);
    const cases: [string, unknown, RegExp][] = [
      ['scoring.nope', 1, /^scoring\.nope: /],
      ['nope.key', 1, /^nope\.key: /],
      ['gc.mode', 'nuke', /^gc\.mode: /],
      ['scoring.w_freq', 'heavy', /^scoring\.w_freq: /],
      ['mid.capacity', -1, /^mid\.capacity: /],
      ['schedule.decay', 'every night', /^schedule\.decay: not a valid cron expression/],
      ['server.port', 70000, /^server\.port: /],
      ['scoring', { w_freq: 'x' }, /^scoring\.w_freq: /],
      ['Scoring.W_FREQ', 1, /^key: /],
      ['', 1, /^key: /],
      ['scoring..w_freq', 1, /^key: /],
    ];
    for (const [key, value, message] of cases) {
      const error = await failure(client.setConfig({ key, value }));
      expect(error.code, key).toBe('BAD_USER_INPUT');
      expect(error.message, key).toMatch(message);
    }
    expect((await failure(client.unsetConfig({ key: 'nope.key' }))).code).toBe('BAD_USER_INPUT');
    const nullValue = await server.graphql('mutation { setConfig(key: "scoring.w_freq", value: null) }');
    expect(nullValue.body.errors?.[0]?.message).toMatch(/null/);
    expect(await current()).toEqual(before);
    expect(await readMetaConfig(server.store.db)).toEqual(meta);
    expect(server.store.config).toEqual(running);
  });

  it('unsets a key: the lower layers apply again', async () => {
    await client.setConfig({ key: 'decay.threshold', value: 0.2 });
    expect(server.store.config.decay.threshold).toBe(0.2);
    const { unsetConfig } = await client.unsetConfig({ key: 'decay.threshold' });
    expect((unsetConfig as Config).decay?.threshold).toBe(0.05);
    expect(server.store.config.decay.threshold).toBe(0.05);
    expect(await readMetaConfig(server.store.db)).not.toHaveProperty('decay');
  });
});
