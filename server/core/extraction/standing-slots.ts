// Where a standing memory is kept: an instruction's polarity, slot and topic words, and the
// standing kind of a heuristic fact's slot. save-standing.ts compares instructions by topic.
import { normalizeText } from '../text/text.ts';
import { LANGUAGES } from './profile-rules.ts';
import type { StandingKind } from './standing-candidate.ts';

export const ANSWER_LANGUAGE = new RegExp(
  String.raw`\b(?:answer|reply|respond|write|speak|talk)(?: to me)? (?:only )?in (?:${LANGUAGES.split(' ').join('|')})\b`,
  'i',
);

/** Whether an instruction says what not to do ("never…", "stop…", "don't…"): -1, else 1. */
export function instructionPolarity(content: string): 1 | -1 {
  return /^(?:\W*(?:actually|please|so|ok|okay|and|also|from now on|going forward)\W+)*(?:never|don't|do not|stop|no more|quit|avoid)\b/i.test(
    content,
  )
    ? -1
    : 1;
}

/** An instruction's slot: the language answers are in (one at a time), else its topic words. */
export function instructionSlot(content: string): string {
  if (ANSWER_LANGUAGE.test(content)) return 'instruction:language';
  return `instruction:${[...instructionTopic(content)].sort().join(' ')}`;
}

// Words that say how, not what: two instructions sharing only these are about different things.
const GENERIC = new Set(
  (
    'actually iv ive im id well always never ever from now going forward future please make sure dont do not stop no more any anymore again when whenever every time each ' +
    'ask asks asking asked about i me my you your the a an to of in on for with and or it that this those these all any some be is are ' +
    'use using used include including included includes give giving provide providing show showing add adding keep keeping put write writing ' +
    'answer answers answering reply replies respond responses response format formatting mention tell explain start end things thing ' +
    'just also only still instead more less each like want need would should could can will'
  ).split(' '),
);

const stem = (word: string) => word.replace(/(?:ing|es|s|ed)$/, '').replace(/e$/, '');

/** The words an instruction is about, stemmed ("stop including versions" -> version). */
export function instructionTopic(content: string): Set<string> {
  return new Set(
    normalizeText(content)
      .split(' ')
      .filter((w) => w.length > 2 && !GENERIC.has(w) && !/^don/.test(w))
      .map(stem),
  );
}

/** How far two instructions are about the same thing: the share of the smaller topic in the other. */
export function topicOverlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.min(a.size, b.size);
}

const PROFILE_SLOTS =
  /^(?:name|home|origin|employer|job|age|birthday|diet|allergy:|intolerance:|condition:|avoids:|diet:|family:|language:|tool:)/;
const PREFERENCE_SLOTS = /^(?:likes:|prefers:|favorite:|keeps:)/;

/** The standing kind a heuristic fact belongs to by its slot (its profile and preference slots), or null. */
export function standingKindOfSlot(slot: string): StandingKind | null {
  if (PREFERENCE_SLOTS.test(slot)) return 'preference';
  if (PROFILE_SLOTS.test(slot)) return 'profile';
  return null;
}
