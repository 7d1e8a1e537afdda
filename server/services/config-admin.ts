// Reading and changing the configuration of a running store (the API's `config` / `setConfig`,
// the CLI's `sm config`). Changes go to the meta table (key "config"), the layer above
// config.json and below the environment; a change is validated by resolving every layer with it
// first, so a bad key or value writes nothing. Sections built into long-lived parts at start
// (LLM and embedding clients, the listener, the schedule, the worker) apply on restart; the rest
// (scoring, gc, mid, decay, extractor, context...) is read at use and applies at once.
import { meta } from '../../drizzle/schema.ts';
import { ConfigError, resolveConfig, setConfigKey, type Config, type ConfigLayer } from '../core/kernel/config.ts';
import { badInput } from '../core/kernel/errors.ts';
import { write, type Store } from '../core/kernel/store.ts';
import { configSourcesOf, readMetaConfig } from '../storage/config-layers.ts';

/** Sections read once when the server starts: a change applies on the next start. */
export const RESTART_SECTIONS: readonly string[] = ['llm', 'embedding', 'server', 'schedule', 'worker'];

export const META_CONFIG_SOURCE = 'meta table (key "config")';

const KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

export type ConfigChange = {
  /** The dotted key that was set or unset. */
  key: string;
  /** Its effective value now (after every layer), or null. */
  value: unknown;
  /** The effective config, as `effectiveConfig` returns it. */
  config: Record<string, unknown>;
  /** True when the key is in a section that applies on restart. */
  restartRequired: boolean;
  /** A layer above the meta table (environment, overrides) that sets this key and so wins over it; null when none. */
  overriddenBy: string | null;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A URL's user and password are credentials: they never leave the process. */
function redact(value: unknown): unknown {
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/\s]*@/i.test(value)) {
    try {
      const url = new URL(value);
      if (url.username || url.password) {
        url.username = url.username ? '***' : '';
        url.password = url.password ? '***' : '';
        return url.toString();
      }
    } catch {
      // Not a URL after all.
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(redact);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
  return value;
}

const layersWith = (store: Store, metaValues: Record<string, unknown>): ConfigLayer[] => {
  const { below, above } = configSourcesOf(store);
  return [...below, { source: META_CONFIG_SOURCE, values: metaValues }, ...above];
};

function valueAt(values: unknown, key: string): { found: boolean; value: unknown } {
  let node = values;
  for (const part of key.split('.')) {
    // Own keys only: `constructor` or `toString` are not config keys because every object has them.
    if (!isPlainObject(node) || !Object.hasOwn(node, part)) return { found: false, value: null };
    node = node[part];
  }
  return { found: true, value: node };
}

/**
 * The configuration as configured now: defaults < config.json < meta table < environment <
 * overrides. Keys of restart sections may differ from what the running server uses until it
 * restarts. API keys appear only as the NAMES of their env vars (`api_key_env`); no env var
 * value is ever included, and credentials inside URLs are masked.
 */
export async function effectiveConfig(store: Store): Promise<Record<string, unknown>> {
  return redact(resolveConfig(layersWith(store, await readMetaConfig(store.db)))) as Record<string, unknown>;
}

function checkKey(key: string) {
  if (!KEY.test(key))
    throw badInput(`key: ${JSON.stringify(key)} is not a config key (dotted lower-case names, e.g. scoring.w_freq)`);
}

/** Resolves with the new meta values, persists them and applies what can apply at once. */
async function change(
  store: Store,
  key: string,
  edit: (metaValues: Record<string, unknown>) => void,
): Promise<ConfigChange> {
  checkKey(key);
  return write(store, async () => {
    const metaValues = structuredClone(await readMetaConfig(store.db));
    edit(metaValues);
    let resolved: Config;
    try {
      resolved = resolveConfig(layersWith(store, metaValues));
    } catch (error) {
      // Name the most precise key: the one given, or the nested key inside it that is wrong.
      if (error instanceof ConfigError)
        throw badInput(`${error.key.startsWith(key) || !key.startsWith(error.key) ? error.key : key}: ${error.reason}`);
      throw error;
    }
    await store.db
      .insert(meta)
      .values({ key: 'config', value: metaValues })
      .onConflictDoUpdate({ target: meta.key, set: { value: metaValues } })
      .run();
    const section = key.split('.')[0]!;
    // Everything outside the restart sections is read from store.config at use: swap those sections in.
    const live = store.config as Record<string, unknown>;
    for (const [name, values] of Object.entries(resolved)) if (!RESTART_SECTIONS.includes(name)) live[name] = values;
    const { above } = configSourcesOf(store);
    const overriding = [...above].reverse().find((layer) => valueAt(layer.values, key).found);
    const config = redact(resolved) as Record<string, unknown>;
    return {
      key,
      value: valueAt(config, key).value ?? null,
      config,
      restartRequired: RESTART_SECTIONS.includes(section),
      overriddenBy: overriding?.source ?? null,
    };
  });
}

/** Sets one dotted key (e.g. `scoring.w_freq`, or a whole section) in the meta layer. BAD_USER_INPUT naming the key when invalid. */
export async function setConfigValue(store: Store, key: string, value: unknown): Promise<ConfigChange> {
  if (value === undefined) throw badInput(`${key}: a value is required`);
  return change(store, key, (metaValues) => setConfigKey(metaValues, key, value));
}

/** Removes one dotted key from the meta layer, so the layers below (config.json, defaults) apply again. */
export async function unsetConfigValue(store: Store, key: string): Promise<ConfigChange> {
  checkKey(key);
  if (!valueAt(resolveConfig([]), key).found) throw badInput(`${key}: not a config key`);
  return change(store, key, (metaValues) => {
    const parts = key.split('.');
    const parents: Record<string, unknown>[] = [metaValues];
    for (const part of parts.slice(0, -1)) {
      const next = parents.at(-1)![part];
      if (!isPlainObject(next)) return;
      parents.push(next);
    }
    delete parents.at(-1)![parts.at(-1)!];
    // Drop sections left empty.
    for (let i = parents.length - 1; i > 0; i--)
      if (Object.keys(parents[i]!).length === 0) delete parents[i - 1]![parts[i - 1]!];
  });
}
