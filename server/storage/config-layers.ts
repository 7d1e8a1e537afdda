// A store's config is layered: defaults < config.json beside the database < the meta table's
// `config` row < environment < overrides (tests, CLI flags). Every backend resolves it the same
// way; the layers outside the database are kept per store so setConfig can re-resolve.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eq } from 'drizzle-orm';
import * as tables from '../../drizzle/schema.ts';
import { ConfigError, configFromEnv, resolveConfig, type Config, type ConfigLayer } from '../core/kernel/config.ts';
import type { Db, Store } from '../core/kernel/store.ts';

export const configFilePath = (dbPath: string) => join(dirname(dbPath), 'config.json');

/** The config layers a store was opened with, around the meta layer (config.json below; environment and overrides above). */
export type ConfigSources = { below: ConfigLayer[]; above: ConfigLayer[] };
const configSources = new WeakMap<Store, ConfigSources>();

/** The layers `store` was opened with, to re-resolve its config when the meta layer changes (setConfig). */
export const configSourcesOf = (store: Store): ConfigSources => configSources.get(store) ?? { below: [], above: [] };
export const rememberConfigSources = (store: Store, sources: ConfigSources) => void configSources.set(store, sources);

function readConfigFile(path: string): ConfigLayer[] {
  if (!existsSync(path)) return [];
  try {
    return [{ source: path, values: JSON.parse(readFileSync(path, 'utf8')) }];
  } catch (error) {
    throw new ConfigError('(file)', `not valid JSON: ${(error as Error).message}`, path);
  }
}

/**
 * The layers outside the database, validated before the database is touched (a bad value
 * changes nothing). `configFile` is the config.json to read, or null (an in-memory database).
 */
export function outerConfigLayers(
  configFile: string | null,
  env: NodeJS.ProcessEnv,
  overrides?: Record<string, unknown>,
): ConfigSources {
  const below = configFile ? readConfigFile(configFile) : [];
  const above = [...configFromEnv(env), ...(overrides ? [{ source: 'overrides', values: overrides }] : [])];
  resolveConfig([...below, ...above]);
  return { below, above };
}

export async function readMetaConfig(db: Db): Promise<Record<string, unknown>> {
  const row = await db.select().from(tables.meta).where(eq(tables.meta.key, 'config')).get();
  return (row?.value as Record<string, unknown> | undefined) ?? {};
}

/** The config of a database opened with `sources`: its meta layer read between them. */
export async function resolveStoreConfig(db: Db, sources: ConfigSources): Promise<Config> {
  return resolveConfig([
    ...sources.below,
    { source: 'meta table (key "config")', values: await readMetaConfig(db) },
    ...sources.above,
  ]);
}
