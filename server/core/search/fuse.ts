// Reciprocal Rank Fusion (Cormack et al., 2009): score = sum over lists of 1 / (k + rank).
// Ranks are 1-based. Only ranks matter, so signals with incomparable scores fuse fairly.
export const RRF_K = 60;

export type RankedList<S extends string> = { signal: S; ids: readonly string[]; weight?: number };

export type Fused<S extends string> = { key: string; score: number; ranks: Partial<Record<S, number>> };

export function rrf<S extends string>(lists: RankedList<S>[], k = RRF_K): Fused<S>[] {
  const byKey = new Map<string, Fused<S>>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    list.ids.forEach((key, index) => {
      let entry = byKey.get(key);
      if (!entry) {
        entry = { key, score: 0, ranks: {} };
        byKey.set(key, entry);
      }
      if (entry.ranks[list.signal] !== undefined) return; // first (best) rank counts once
      entry.ranks[list.signal] = index + 1;
      entry.score += weight / (k + index + 1);
    });
  }
  return [...byKey.values()].sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
}
