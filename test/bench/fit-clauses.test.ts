// bench:fit-clauses --bounds: what any choice among the extractor's candidates could reach, on a
// conversation small enough to count by hand.
import { describe, expect, it } from 'vitest';
import { bounds, readConversation } from '../../bench/fit-clauses.ts';
import { loadLocomo } from '../../bench/locomo-data.ts';
import { locomoFile, turn } from '../helpers/locomo-file.ts';

function conversation() {
  const file = locomoFile(
    'conv-bounds',
    [
      turn('D1:1', 'Ana', 'I went to a pottery class yesterday and loved it.'),
      turn('D1:2', 'Ben', 'I adopted a dog named Rex.'),
      turn('D1:3', 'Ana', 'I live in Lisbon now.'),
      turn('D1:4', 'Ben', 'Wow, cool!'),
    ],
    // Two observations in the turns' words, one paraphrase no candidate holds; Lisbon is not observed.
    {
      Ana: [['Ana went to a pottery class.', 'D1:1']],
      Ben: [
        ['Ben adopted a dog named Rex.', 'D1:2'],
        ['Ben is an animal lover.', 'D1:4'],
      ],
    },
  );
  return readConversation(loadLocomo(file)[0]!);
}

const row = (text: string, name: string) =>
  text
    .split('\n')
    .find((line) => line.startsWith(name))
    ?.split('\t')
    .slice(1)
    .map(Number);

describe('bench:fit-clauses --bounds', () => {
  it('a perfect chooser keeps only supported candidates; a perfect turn filter drops the unobserved turn; 0.45 needs two particular candidates', () => {
    const c = conversation();
    const text = bounds([c], new Map(c.rows.map((r) => [r, 0.9])));
    const every = row(text, 'every candidate')!;
    const perfect = row(text, 'only the supported candidates')!;
    // Lisbon's fact is a candidate but no observation supports it.
    expect(every[2]).toBeLessThan(1);
    expect(perfect[1]).toBeCloseTo(2 / 3, 3);
    expect(perfect[2]).toBe(1);
    const filtered = row(text, 'held-out model at 0.3')!;
    expect(filtered[2]).toBe(1);
    expect(text).toMatch(/needs at least 2 particular candidates of the 2 supported/);
  });
});
