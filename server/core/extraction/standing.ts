// Standing memory at ingest, with no model: instructions the user gives the assistant for every
// later answer, the user's preferences, and the facts of their profile. Each is recognised in
// the user's own sentences (never an assistant's), before any other filtering, so that "always
// format code with syntax highlighting" is known as an instruction when it is said: no later
// query needs to share its words. docs/memory-kinds.md says what counts and what does not.
import { slotKey, thirdPerson } from './fact-sentences.ts';
import { FAVOURITE, PROFILE_RULES, short, words } from './profile-rules.ts';
import type { StandingCandidate } from './standing-candidate.ts';
import { ANSWER_LANGUAGE, instructionSlot } from './standing-slots.ts';

/** A standing memory is said in a sentence; a longer one is kept to this many characters. */
export const MAX_STANDING_CHARS = 1_000;
/** Words of a preference's or profile fact's value at most (the rest of the sentence is about something else). */
const MAX_VALUE_WORDS = 16;

// Verbs an instruction about the assistant's answers starts with ("always include…", "never use…").
const ANSWER_VERBS = new Set(
  (
    'add address answer ask avoid be begin bold break call capitalise capitalize check cite close comment compare convert default describe ' +
    'display do double-check end explain express follow format give greet highlight include indent keep label leave let limit link list ' +
    'make mark mention number offer open organise organize point present prefix provide put quote recommend refer remind reply respond ' +
    'return round say send show sign speak spell start state stick structure suggest summarise summarize tag talk tell test translate ' +
    'treat try use wrap write enable disable emphasise emphasize clarify consider prioritise prioritize note flag warn verify validate ' +
    'outline walk illustrate demonstrate visualise visualize draw attach append assume refrain stay lead break check'
  ).split(' '),
);
/** Words after "always"/"never" that make it a remark, not an instruction ("never mind", "always a pleasure"). */
const NOT_AFTER_MARKER =
  /^(?:mind|a|an|the|been|was|were|had|has|have|is|are|so|too|more|again|ever|fun|good|great|nice|happy|glad|here|there|that|this|thought|knew|saw|said|went|got|did|seen|heard|know|knows|liked|loved|forget|forgets|forgot|late|on|up|in)\b/i;

const OPENERS =
  /^(?:(?:ok(?:ay)?|so|also|and|but|oh|btw|by the way|actually|one more thing|just|hey|hi|please note|note|fyi|quick note|important)[,:!.]?\s+)+/i;
const POLITE = /^(?:please\s+|kindly\s+|pls\s+)/i;

/** Sentences of a user's turn: code blocks and quoted text are skipped (they are not said to the assistant). */
export function standingSentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/[’‘]/g, "'")
    .split(/(?<!\b(?:St|Dr|Mr|Mrs|Ms|Jr|Sr|Prof|vs|etc|e\.g|i\.e|approx)\.)(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 3);
}

const cap = (text: string) =>
  text.length <= MAX_STANDING_CHARS ? text : `${text.slice(0, MAX_STANDING_CHARS).replace(/\s+\S*$/, '')}…`;
const firstUpper = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The instruction in a sentence, with its polarity, or null. */
function instructionIn(sentence: string): { text: string; polarity: 1 | -1; rule: string } | null {
  if (/\?\s*$/.test(sentence)) return null;
  let s = sentence.replace(OPENERS, '').replace(/^["'(]+/, '');
  // Encouragement to a friend, not a rule for answers ("never give up on yourself").
  if (/\byourself\b|\byou(?:'re| are) (?:doing|gonna|going)\b/i.test(s)) return null;
  const lead =
    /^(?:from now on|going forward|moving forward|in (?:the )?future|for (?:all )?future (?:answers|replies|responses)|for the rest of (?:our|this) (?:chat|conversation)|at all times)\s*,?\s*/i.exec(
      s,
    );
  if (lead) s = s.slice(lead[0].length);
  // "Whenever I ask about X, include Y" / "When I ask about X, please always Y".
  const when = /^(?:whenever|every time|each time|any time|anytime|when|if)\s+(?:i|we)\b[^,]{2,200},\s*(.+)$/i.exec(s);
  const conditioned = when !== null;
  if (when) s = when[1]!;
  s = s
    .replace(POLITE, '')
    .replace(
      /^(?:i (?:want|need) you to|i'd like you to|i would like you to|you should|you must|you need to|you have to|remember to|be sure to|make sure (?:to|that you|you)|try to|can you)\s+/i,
      (m) => (/^(?:make sure|be sure|remember)/i.test(m) ? 'always ' : ''),
    );
  s = s.replace(POLITE, '');
  const negative = /^(?:never|don't ever|do not ever|don't|do not|stop|no more|quit)\b\s*/i.exec(s);
  const positive = /^(?:always|only|still)\b\s*/i.exec(s);
  let rest = s;
  let polarity: 1 | -1 = 1;
  if (negative) {
    rest = s.slice(negative[0].length);
    polarity = -1;
    const word = negative[0].trim().toLowerCase();
    // "stop including versions": a gerund; "don't X" alone needs a standing lead ("from now on, don't…").
    if (word === 'stop' || word === 'quit') {
      if (!/^\w+ing\b/i.test(rest) || /^(?:worrying|stressing|thinking|being)\b/i.test(rest)) return null;
      return { text: sentence, polarity, rule: 'instruction.stop' };
    }
    if (
      (word === "don't" || word === 'do not') &&
      !lead &&
      !conditioned &&
      !/\b(?:again|anymore|any more|ever)\b/i.test(rest)
    )
      return null;
    if (word === 'no more' && !lead) return null;
  } else if (positive) {
    rest = s.slice(positive[0].length);
  } else if (!lead && !conditioned) {
    return null;
  }
  rest = rest.replace(POLITE, '').replace(/^(?:always|never|ever)\s+/i, '');
  if (NOT_AFTER_MARKER.test(rest)) return null;
  const verb = /^([a-z-]+)/i.exec(rest)?.[1]?.toLowerCase() ?? '';
  // Any verb will do when the rule is tied to what the user asks ("always enable X when I ask about Y").
  const aboutMyAsking =
    /\b(?:when(?:ever)?|every time|each time|if) I (?:ask|request|want|need|mention|say|talk|send|share|bring up|am asking|'m asking)\b/i.test(
      sentence,
    );
  if (!ANSWER_VERBS.has(verb) && !(aboutMyAsking && /^[a-z]{3,}$/i.test(verb) && !/(?:ed|ly)$/.test(verb))) return null;
  // "never give up", "always be there": life advice, not a rule for answers.
  if (
    /^(?:give up|be there|be kind|be yourself|be careful|be honest|be grateful|be happy|do your best|try your best|keep going|keep (?:it|pushing))/i.test(
      rest,
    )
  )
    return null;
  return {
    text: sentence,
    polarity,
    rule: lead
      ? 'instruction.from_now_on'
      : conditioned
        ? 'instruction.whenever'
        : polarity === 1
          ? 'instruction.always'
          : 'instruction.never',
  };
}

// A preference stated in the first person, present tense, anywhere in a sentence (BEAM users say
// "…, so I prefer simple, minimal dependencies, how can I…"). Not "I'd like to", "I love that you…".
const PREFERENCE_ADVERBS = `(?:really |much |generally |usually |strongly |definitely |also |still |now |actually |tend to |always |honestly |kind of |personally |just |totally |absolutely )*`;
const PREFERENCE = new RegExp(
  String.raw`(?:^|[\s,;(])(?:(?<neg>I ${PREFERENCE_ADVERBS}(?:don't|do not) (?:really )?(?:like|love|enjoy)|I(?:'m| am) not (?:a (?:big )?fan of|into))|(?<verb>I ${PREFERENCE_ADVERBS}(?:prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't stand|cannot stand|favou?r)|I(?:'d| would) ${PREFERENCE_ADVERBS}(?:rather|prefer)|I(?:'m| am) ${PREFERENCE_ADVERBS}(?:a (?:big |huge )?fan of|into|obsessed with|passionate about)))\s+(?<value>.+)`,
  'i',
);
const NEGATIVE_PREFERENCE = /\b(?:don't|do not|hate|dislike|detest|loathe|can't stand|cannot stand|not a fan of)\b/i;
/** What follows "I like" that makes it a reaction or a request, not a preference. */
const NOT_A_PREFERENCE_VALUE =
  /^(?:(?:that|this)(?! (?:approach|method|style|way|kind|type|format|pattern|option|setup|solution|one)\b)|it(?! (?:over|to|rather than|instead of)\b)|how|what|your|you|the way you|those|these|them|to (?:think|ask|say|know|see|hear|bother|admit|break|be honest)|when you|if)\b/i;
/** A clause of the sentence ends the value: another question, a request, a new first-person clause. */
const VALUE_END =
  /\s*(?:[?;:()]|,?\s(?:and|but|so|plus) (?=(?:i|i'm|i've|my|we)\b)|,\s*(?:how|what|can|could|would|will|should|do|does|is|are|and (?:i|can|how|what)|but|so|which|where|when|while|considering|given|since|as i|because i|i'm|i am|i've|i|it|it's|that's|this|they|we|he|she|you|thanks|lol|haha)\b|\s(?:but|so|because i|although|though|how can|can you|could you|would you)\s)/i;

/** "as stated in my preference for X", "my preference is X": the user naming a preference. */
const MY_PREFERENCE = /\bmy (?:\w+ )?preference (?:is (?:for |to )?|for |would be )(.+)/i;
/** A goal that shapes every answer: "I'm trying to keep my bundle under 100KB", "I want to keep the app lightweight". */
const KEEP_GOAL =
  /\bI(?:'m| am)? (?:trying|want|need|aim|hoping|planning) to keep (my|the|our) ([\w\s-]{2,40}?) ((?:under|below|within|lightweight|minimal|simple|small|lean|fast|clean|readable|maintainable|secure|accessible|dependency-free|free of|offline|private)\b[^,;?]{0,60}?)(?=[,;?]|\.(?:\s|$)|$)/i;

function preferenceIn(sentence: string, subject: string): StandingCandidate | null {
  const named = MY_PREFERENCE.exec(sentence);
  if (named) {
    const value = named[1]!
      .split(VALUE_END)[0]!
      .replace(/[.!…"]+$/, '')
      .split(/\s+/)
      .slice(0, MAX_VALUE_WORDS)
      .join(' ')
      .trim();
    if (value.length > 2)
      return {
        kind: 'preference',
        content: cap(`${subject} prefers ${thirdPerson(value, subject)}`),
        slot: `prefers:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
        rule: 'preference.named',
      };
  }
  const goal = KEEP_GOAL.exec(sentence);
  if (goal) {
    const value = `${goal[2]!.trim()} ${goal[3]!.trim()}`;
    return {
      kind: 'preference',
      content: cap(
        `${subject} wants to keep ${goal[1]!.toLowerCase() === 'my' ? 'their' : goal[1]!.toLowerCase()} ${value}`,
      ),
      slot: `keeps:${slotKey(goal[2]!)}`,
      value,
      polarity: 1,
      exclusive: false,
      rule: 'preference.keep',
    };
  }
  const m = PREFERENCE.exec(sentence);
  if (!m?.groups || m.groups.value === undefined) return null;
  const before = sentence.slice(0, m.index);
  // "if I like it", "do I prefer…", "she says I love…": not a statement of the user's preference.
  if (/\b(?:if|whether|unless|do|does|did|would|should|says|said|thinks|thought|asked)\s*$/i.test(before)) return null;
  const verbPhrase = (m.groups.neg ?? m.groups.verb)!;
  let value = m.groups.value
    .split(VALUE_END)[0]!
    .replace(/[.!…"]+$/, '')
    .trim();
  if (/^(?:'d|would) (?:like|love) to\b/i.test(verbPhrase) || NOT_A_PREFERENCE_VALUE.test(value) || value.length < 2)
    return null;
  value = value.split(/\s+/).slice(0, MAX_VALUE_WORDS).join(' ');
  const polarity: 1 | -1 = m.groups.neg || NEGATIVE_PREFERENCE.test(verbPhrase) ? -1 : 1;
  const prefers = /prefer|rather|favou?r/i.test(verbPhrase);
  const verb =
    polarity === -1
      ? 'dislikes'
      : /rather/i.test(verbPhrase)
        ? 'would rather'
        : prefers
          ? 'prefers'
          : /love|adore|obsessed|passionate|fan/i.test(verbPhrase)
            ? 'loves'
            : 'likes';
  const said = thirdPerson(value, subject);
  const main = prefers ? value.split(/\s+(?:over|to|than|instead of|rather than)\s+/i)[0]! : value;
  return {
    kind: 'preference',
    content: cap(`${subject} ${verb} ${said}`),
    slot: `${prefers ? 'prefers' : 'likes'}:${slotKey(main)}`,
    value,
    polarity,
    exclusive: false,
    rule: 'preference.stated',
  };
}

function profileIn(sentence: string, subject: string): StandingCandidate[] {
  if (/\?\s*$/.test(sentence) && !/,/.test(sentence)) return [];
  const out: StandingCandidate[] = [];
  const clause = sentence.replace(OPENERS, '');
  for (const rule of PROFILE_RULES) {
    const m = rule.pattern.exec(clause);
    if (!m) continue;
    const before = clause.slice(0, m.index);
    if (
      /\b(?:if|whether|unless|says|said|thinks|told me|asked)\s*$/i.test(before) ||
      /\b(?:he|she|they|you)\s*$/i.test(before)
    )
      continue;
    const built = rule.build(m, subject);
    if (built?.value) out.push({ kind: 'profile', rule: rule.rule, ...built, content: cap(built.content) });
  }
  const fav = FAVOURITE.exec(clause);
  if (fav) {
    const thing = fav[1]!.trim().toLowerCase();
    const value = words(short(fav[2]!), 8);
    if (value)
      out.push({
        kind: 'preference',
        content: `${subject}'s favorite ${thing} is ${value}`,
        slot: `favorite:${slotKey(thing)}`,
        value,
        polarity: 1,
        exclusive: true,
        rule: 'preference.favorite',
      });
  }
  return out;
}

/**
 * The standing memories in a user's turn: instructions (kept in the user's words), preferences
 * and profile facts (said about `subject`). Pure and fast: it runs on the hot path.
 */
export function recogniseStanding(text: string, subject = 'User'): StandingCandidate[] {
  const out: StandingCandidate[] = [];
  for (const sentence of standingSentences(text)) {
    const instruction = instructionIn(sentence);
    if (instruction) {
      const content = cap(firstUpper(instruction.text.replace(/\s+/g, ' ').trim()));
      out.push({
        kind: 'instruction',
        content,
        slot: instructionSlot(content),
        value: content,
        polarity: instruction.polarity,
        exclusive: ANSWER_LANGUAGE.test(content),
        rule: instruction.rule,
      });
      continue;
    }
    const preference = preferenceIn(sentence, subject);
    if (preference) out.push(preference);
    for (const p of profileIn(sentence, subject)) if (!out.some((o) => o.slot === p.slot)) out.push(p);
  }
  return out;
}
