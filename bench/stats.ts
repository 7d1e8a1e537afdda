// Percentiles for benchmark reports.
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (rank - low);
}

export const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
