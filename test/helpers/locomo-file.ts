// A LoCoMo-format conversation written to a temporary file, for the benchmark scripts' tests (the
// real data sets are not part of the repository): one session of Ana and Ben, with observations.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const turn = (id: string, speaker: string, text: string) => ({ speaker, dia_id: id, text });

type Turn = ReturnType<typeof turn>;
/** Observations by speaker, each [text, dialogue id]. */
type Observations = Record<string, [string, string][]>;

export function locomoFile(name: string, session: Turn[], observations: Observations): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sm-bench-')), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: session,
      },
      observation: { session_1_observation: observations },
      qa: [],
    }),
  );
  return file;
}
