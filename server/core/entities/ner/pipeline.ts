// The NER pipeline: strategies pick providers, their results merge by span overlap (highest
// confidence, then longest span, wins). `fast` runs inside addTurn's transaction; `accurate`
// runs after the commit (durable job, enrichment) and may wait on the network.
import type { Config } from '../../kernel/config.ts';
import type { Space } from '../../kernel/space.ts';
import type { Store } from '../../kernel/store.ts';
import { compromiseProvider } from './compromise-provider.ts';
import { knownEntitiesProvider } from './known-entities.ts';
import { regexProvider } from './regex-provider.ts';
import { NerUnavailable, span, type NerEntity, type NerProvider, type SyncNerProvider } from '../types.ts';
import type { NerProviderName } from '../../kernel/vocabulary.ts';

export const NerStrategy = { Fast: 'fast', Accurate: 'accurate' } as const;
export type NerStrategy = (typeof NerStrategy)[keyof typeof NerStrategy];

/**
 * Providers that live outside the core, injected by the runtime: the LLM (network), and
 * compromise run in a thread of its own (else it runs here, in this thread).
 */
export type NerExtras = { llm?: NerProvider | null; compromise?: NerProvider };

/**
 * One entity per stretch of text. Candidates are taken best first (confidence, then length,
 * then position) and each is kept unless it overlaps one already kept. Returned in text order.
 */
export function mergeBySpan(candidates: NerEntity[]): NerEntity[] {
  const ranked = [...candidates].sort((a, b) => b.confidence - a.confidence || span(b) - span(a) || a.start - b.start);
  const kept: NerEntity[] = [];
  for (const candidate of ranked) {
    if (candidate.end <= candidate.start) continue;
    if (kept.some((k) => candidate.start < k.end && k.start < candidate.end)) continue;
    kept.push(candidate);
  }
  return kept.sort((a, b) => a.start - b.start);
}

const enabled = (config: Config, name: NerProviderName) => config.ner.providers.includes(name);

/**
 * The hot path's providers: regex (always) and, unless disabled, the known-entities matcher,
 * with the user's known names read now (they then run without I/O, see extractSync).
 */
export async function fastProviders(store: Store, space: Space): Promise<SyncNerProvider[]> {
  return enabled(store.config, 'known') ? [regexProvider, await knownEntitiesProvider(store, space)] : [regexProvider];
}

/** Everything available: the fast providers plus compromise and the injected LLM, as configured. */
export async function accurateProviders(store: Store, space: Space, extras: NerExtras = {}): Promise<NerProvider[]> {
  const providers: NerProvider[] = [...(await fastProviders(store, space))];
  if (enabled(store.config, 'compromise')) providers.push(extras.compromise ?? compromiseProvider);
  if (enabled(store.config, 'llm') && extras.llm) providers.push(extras.llm);
  return providers;
}

/**
 * Whether `accurate` adds anything over `fast`. Enrichment
 * and the per-turn accurate job are skipped, with this reason, when it does not.
 */
export function accurateNerAvailability(
  config: Config,
  extras: NerExtras = {},
): { available: true } | { available: false; reason: string } {
  if (enabled(config, 'compromise')) return { available: true };
  if (enabled(config, 'llm') && extras.llm) return { available: true };
  const reason = enabled(config, 'llm')
    ? 'no accurate NER provider: ner.providers leaves out compromise and no LLM is configured (llm.model)'
    : 'no accurate NER provider: ner.providers lists neither compromise nor llm';
  return { available: false, reason };
}

/** Runs sync providers (safe inside a transaction) and merges their results. */
export function extractSync(text: string, providers: SyncNerProvider[]): NerEntity[] {
  return mergeBySpan(providers.flatMap((p) => p.extract(text)));
}

export type NerRun = { entities: NerEntity[]; failures: { provider: string; error: string }[] };

const failure = (provider: NerProvider, error: unknown) => ({
  provider: provider.name,
  error: error instanceof Error ? error.message.slice(0, 300) : String(error),
});

/** Runs every provider; one that fails (an LLM timeout, bad JSON) is left out and reported (see NerUnavailable). */
export async function extractEntities(text: string, providers: NerProvider[]): Promise<NerRun> {
  return (await extractEntitiesMany([{ text, providers }]))[0]!;
}

/**
 * The same for many texts, each with its providers. A provider that takes many texts at once
 * (compromise) gets all of its texts in one call, while the others run text by text (an LLM
 * endpoint, often local, is not sent a burst of calls).
 */
export async function extractEntitiesMany(
  items: readonly { text: string; providers: NerProvider[] }[],
): Promise<NerRun[]> {
  // Each provider's results in its slot, merged in provider order whatever answered first.
  const found = items.map(({ providers }) => providers.map((): NerEntity[] => []));
  const failures = items.map((): NerRun['failures'] => []);
  const grouped = new Map<NerProvider, [item: number, slot: number][]>();
  items.forEach(({ providers }, i) =>
    providers.forEach((p, slot) => p.extractMany && grouped.set(p, [...(grouped.get(p) ?? []), [i, slot]])),
  );
  // The grouped calls start first (compromise parses in its thread while an LLM answers).
  const batches = Promise.all(
    [...grouped].map(async ([provider, places]) => {
      try {
        const results = await provider.extractMany!(places.map(([i]) => items[i]!.text));
        places.forEach(([i, slot], k) => (found[i]![slot] = results[k]!));
      } catch (error) {
        if (error instanceof NerUnavailable) throw error;
        for (const [i] of places) failures[i]!.push(failure(provider, error));
      }
    }),
  );
  // Awaited below, after the other providers: until then a failure must not count as unhandled.
  batches.catch(() => {});
  for (const [i, { text, providers }] of items.entries()) {
    for (const [slot, provider] of providers.entries()) {
      if (provider.extractMany) continue;
      try {
        found[i]![slot] = await provider.extract(text);
      } catch (error) {
        if (error instanceof NerUnavailable) throw error;
        failures[i]!.push(failure(provider, error));
      }
    }
  }
  await batches;
  return items.map((_, i) => ({ entities: mergeBySpan(found[i]!.flat()), failures: failures[i]! }));
}
