// The turn ranker's fit (bench/ranker-loss.ts): on questions whose evidence one feature marks, the
// fit weighs that feature most, leaves frozen features at 0, and gives the same weights every run.
import { describe, expect, it } from 'vitest';
import { fitSoftmax, type RankedQuestion } from '../../bench/ranker-loss.ts';

/** Three features: 0 marks the evidence, 1 is noise, 2 would mark it too but is frozen. */
function questions(count: number, dataset: string): RankedQuestion[] {
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, () => {
    const rows = 20;
    const evidence = Math.floor(random() * rows);
    const features: number[] = [];
    for (let r = 0; r < rows; r++)
      features.push(r === evidence ? 0.9 : random() * 0.5, random(), r === evidence ? 1 : 0);
    return { dataset, rows, features, evidence: [evidence] };
  });
}

describe('fitSoftmax', () => {
  it('weighs the feature that marks the evidence, leaves a frozen one at 0, and is deterministic', () => {
    const set = [...questions(30, 'a'), ...questions(5, 'b')];
    const w = fitSoftmax(set, 3, new Set([2]));
    expect(w[2]).toBe(0);
    expect(w[0]!).toBeGreaterThan(1);
    expect(w[0]!).toBeGreaterThan(5 * Math.abs(w[1]!));
    expect([...fitSoftmax(set, 3, new Set([2]))]).toEqual([...w]);
    // Under the fitted weights the evidence is every question's best row.
    for (const q of set) {
      const score = (r: number) => w[0]! * q.features[r * 3]! + w[1]! * q.features[r * 3 + 1]!;
      const best = [...Array(q.rows).keys()].sort((a, b) => score(b) - score(a))[0];
      expect(best).toBe(q.evidence[0]);
    }
  });

  it('skips a question whose evidence is not among its candidates', () => {
    const none: RankedQuestion = { dataset: 'a', rows: 2, features: [1, 0, 0, 0, 1, 0], evidence: [-1] };
    expect([...fitSoftmax([none], 3, new Set())]).toEqual([0, 0, 0]);
  });
});
