// bench:extract-uncovered: the observations no memory of their turn covers, each in the shape that
// says why. Run as a script on a LoCoMo-format conversation made here, and the shapes read directly.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { shapeOf } from '../../bench/extract-uncovered.ts';
import { locomoFile, turn } from '../helpers/locomo-file.ts';

const run = promisify(execFile);
const TSX = join(import.meta.dirname, '../..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SCRIPT = join(import.meta.dirname, '../..', 'bench', 'extract-uncovered.ts');

/** Ana's pottery class is covered; Ben's praise of it is no fact of his. */
const session = [
  turn('D1:1', 'Ana', 'I went to a pottery class yesterday and loved it.'),
  turn('D1:2', 'Ben', 'So proud of you, Ana!'),
];
const observations: Record<string, [string, string][]> = {
  Ana: [['Ana attended a pottery class and loved it.', 'D1:1']],
  Ben: [['Ben is supportive of Ana and her new hobby.', 'D1:2']],
};

describe('bench:extract-uncovered', () => {
  it('counts the observations no memory covers, by shape; a covered one is not listed', {
    timeout: 60_000,
  }, async () => {
    const file = locomoFile('conv-uncovered', session, observations);
    const { stdout } = await run(process.execPath, [TSX, SCRIPT, '--json', file], {
      env: { ...process.env, SM_LOG_LEVEL: 'error' },
    });
    expect(JSON.parse(stdout)).toEqual({
      uncovered: 1,
      shapes: { "not in the turn's words: names the other speaker": 1 },
    });
  });

  it('tells a paraphrase, words spread over clauses, a question and a clause no rule reads apart', () => {
    const missed = (observation: string, text: string) => ({
      observation,
      turn: 'c D1:1',
      text,
      other: 'Ben',
      candidates: [],
    });
    expect(shapeOf(missed('Ana values her family deeply.', 'Family moments make life awesome!'))).toBe(
      "not in the turn's words: a paraphrase or summary",
    );
    expect(
      shapeOf(
        missed(
          'Ana rehearsed with dancers and performs at festivals.',
          'I rehearsed with dancers. We perform at festivals.',
        ),
      ),
    ).toBe('spread over clauses');
    expect(shapeOf(missed('Ana finished a pottery project.', 'I finished a pottery project, want to see it?'))).toBe(
      'one clause; a question',
    );
    expect(
      shapeOf(missed('Ana feels a strong urge to serve her country.', 'I feel a strong urge to serve my country.')),
    ).toBe('one clause; first person, no rule reads it');
  });
});
