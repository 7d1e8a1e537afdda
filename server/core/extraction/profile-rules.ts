// The phrase table of profile facts the standing-memory recogniser (standing.ts) reads in a
// user's sentence: name, home, work, family, languages and the like, and "my favourite X is Y".
import { slotKey } from './fact-sentences.ts';
import type { StandingCandidate } from './standing-candidate.ts';

export const FAVOURITE =
  /\bmy (?:all[- ]time |absolute )?(?:favou?rite|fave) ([\w\s-]{1,30}?) (?:is|are|has to be) (.+)/i;

type ProfileRule = {
  rule: string;
  pattern: RegExp;
  build: (m: RegExpExecArray, subject: string) => Omit<StandingCandidate, 'kind' | 'rule'> | null;
};

export const short = (raw: string) =>
  raw
    .split(/\s*(?:[,;:()?!]|\.\s|\.$|\s(?:and|but|so|because|since|which|where|who|when|while|for|to|with|at)\s)/i)[0]!
    .trim();
export const words = (raw: string, n: number) => raw.split(/\s+/).slice(0, n).join(' ');
export const LANGUAGES =
  'english spanish french german italian portuguese dutch polish russian ukrainian czech greek turkish arabic hebrew hindi bengali urdu punjabi tamil chinese mandarin cantonese japanese korean vietnamese thai indonesian malay tagalog swahili swedish norwegian danish finnish hungarian romanian catalan basque persian farsi';
const LANGUAGE = new RegExp(String.raw`\b(${LANGUAGES.split(' ').join('|')})\b`, 'i');
const FAMILY =
  'wife|husband|partner|spouse|son|daughter|kids|children|child|baby|mom|mum|mother|dad|father|parents|brother|sister|siblings|boyfriend|girlfriend|fianc[ée]e?|grandma|grandmother|grandpa|grandfather|dog|cat|puppy|kitten';

/** Words that name a job: "I'm a nurse" is one, "I'm a huge fan" is not. */
const OCCUPATIONS = new Set(
  'engineer developer programmer designer technologist scientist analyst architect teacher tutor professor lecturer nurse doctor physician surgeon dentist pharmacist therapist counselor counsellor psychologist lawyer attorney accountant consultant manager director student researcher writer author journalist editor artist musician photographer chef cook baker barista librarian mechanic electrician plumber carpenter farmer pilot firefighter paramedic technician administrator entrepreneur founder freelancer translator veterinarian officer clerk cashier driver retiree'.split(
    ' ',
  ),
);
/** Where a job's words end: "a colour technologist from Port Michael". */
const JOB_END = /\s(?:from|in|at|for|with|and|but|who|based|working|living|trying|looking)\b|[,;:.!?(]/;

const nameIs: ProfileRule['build'] = (m, s) => ({
  content: `${s}'s name is ${m[1]}`,
  slot: 'name',
  value: m[1]!,
  polarity: 1,
  exclusive: true,
});

export const PROFILE_RULES: ProfileRule[] = [
  {
    // How a user often introduces themselves to an assistant: "I'm Craig, a 44-year-old colour technologist".
    rule: 'profile.name',
    pattern: /\bI(?:'m| am) ([A-Z][a-z]+), (?:an?|the) /,
    build: nameIs,
  },
  {
    rule: 'profile.work',
    pattern: /\bI(?:'m| am) (?:[A-Z][a-z]+, )?[Aa]n? (?:\d{1,3}-year-old )?([\w-]+(?: [\w-]+){0,5})/,
    build: (m, s) => {
      const value = m[1]!.split(JOB_END)[0]!.trim().split(/\s+/).slice(-3).join(' ');
      const last = value.split(' ').pop()!.toLowerCase().replace(/s$/, '');
      if (!OCCUPATIONS.has(last)) return null;
      const job = value.toLowerCase();
      return {
        content: `${s} is ${/^[aeiou]/.test(job) ? 'an' : 'a'} ${job}`,
        slot: 'job',
        value: job,
        polarity: 1,
        exclusive: true,
      };
    },
  },
  {
    rule: 'profile.name',
    pattern: /\b(?:[Mm]y name is|[Mm]y name's|[Cc]all me|I go by)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)/,
    build: nameIs,
  },
  {
    rule: 'profile.home',
    pattern:
      /\bI(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:back )?to ([A-Z][\w'.-]*(?:,? [A-Z][\w'.-]*){0,3})/,
    build: (m, s) => ({ content: `${s} moved to ${m[1]}`, slot: 'home', value: m[1]!, polarity: 1, exclusive: true }),
  },
  {
    rule: 'profile.home',
    pattern:
      /\bI(?:'m| am)? (?:currently |still |now )?(?:live|living|based|reside|residing) in ([A-Z][\w'.-]*(?:,? [A-Z][\w'.-]*){0,3})/,
    build: (m, s) => ({ content: `${s} lives in ${m[1]}`, slot: 'home', value: m[1]!, polarity: 1, exclusive: true }),
  },
  {
    rule: 'profile.work',
    pattern: /\bI (?:currently |now |still )?work (?:as (?:an? )?|at |for )([\w'&.-]+(?:\s[\w'&.-]+){0,4})/i,
    build: (m, s) => {
      const value = short(m[1]!);
      if (!value || /^(?:it|this|that|home|hard|on|a)$/i.test(value)) return null;
      const as = /work as/i.test(m[0]);
      return {
        content: `${s} works ${as ? 'as' : 'at'} ${as && !/^an? /i.test(value) ? (/^[aeiou]/i.test(value) ? 'an ' : 'a ') : ''}${value}`,
        slot: as ? 'job' : 'employer',
        value,
        polarity: 1,
        exclusive: true,
      };
    },
  },
  {
    rule: 'profile.work',
    pattern: /\bmy (?:job|role|position|title|profession) is (?:an? )?([\w'-]+(?:\s[\w'-]+){0,4})/i,
    build: (m, s) => ({
      content: `${s}'s job is ${short(m[1]!)}`,
      slot: 'job',
      value: short(m[1]!),
      polarity: 1,
      exclusive: true,
    }),
  },
  {
    rule: 'profile.family',
    pattern: new RegExp(
      String.raw`\b[Mm]y (${FAMILY})(?:'s name)? (?:is|are|'s) (?:called |named )?([A-Z][\w'-]+(?: (?:and|&) [A-Z][\w'-]+)?)`,
    ),
    build: (m, s) => ({
      content: `${s}'s ${m[1]} ${/s$/.test(m[1]!) || / and /.test(m[2]!) ? 'are' : 'is'} ${m[2]}`,
      slot: `family:${m[1]!.toLowerCase()}`,
      value: m[2]!,
      polarity: 1,
      exclusive: false,
    }),
  },
  {
    rule: 'profile.family',
    pattern: new RegExp(
      String.raw`\bI (?:have|'ve got|have got) (a|an|one|two|three|four|five|\d) (?:little |young |older |younger |grown-up |lovely )?(${FAMILY}|sons|daughters|brothers|sisters|dogs|cats)\b`,
      'i',
    ),
    build: (m, s) => ({
      content: `${s} has ${m[1]!.toLowerCase()} ${m[2]!.toLowerCase()}`,
      slot: `family:${m[2]!.toLowerCase().replace(/s$/, '')}`,
      value: `${m[1]} ${m[2]}`,
      polarity: 1,
      exclusive: false,
    }),
  },
  {
    rule: 'profile.family',
    pattern:
      /\bI(?:'m| am) (married|single|divorced|engaged|widowed|a (?:single )?(?:mom|mum|dad|mother|father|parent))\b/i,
    build: (m, s) => ({
      content: `${s} is ${m[1]!.toLowerCase()}`,
      slot: 'family:status',
      value: m[1]!.toLowerCase(),
      polarity: 1,
      exclusive: /married|single|divorced|engaged|widowed/i.test(m[1]!),
    }),
  },
  {
    rule: 'profile.diet',
    pattern: /\bI(?:'m| am) (?:severely |very |a bit |mildly )?(allergic|intolerant) to ([\w\s,-]+)/i,
    build: (m, s) => {
      const value = words(short(m[2]!), 5);
      return value
        ? {
            content: `${s} is ${m[1]!.toLowerCase()} to ${value}`,
            slot: `${m[1]!.toLowerCase() === 'allergic' ? 'allergy' : 'intolerance'}:${slotKey(value)}`,
            value,
            polarity: 1,
            exclusive: false,
          }
        : null;
    },
  },
  {
    rule: 'profile.diet',
    pattern:
      /\bI(?:'m| am) (?:a |an )?(?:strict )?(vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]free|diabetic|coeliac|celiac|keto|halal|kosher|teetotal)\b/i,
    build: (m, s) => ({
      content: `${s} is ${m[1]!.toLowerCase()}`,
      slot: 'diet',
      value: m[1]!.toLowerCase(),
      polarity: 1,
      exclusive: false,
    }),
  },
  {
    rule: 'profile.diet',
    pattern: /\bI (?:don't|do not|can't|cannot|never) (?:eat|drink) ([\w\s-]+)/i,
    build: (m, s) => {
      const value = words(short(m[1]!), 4);
      if (!value || /^(?:much|a lot|anything|enough|after|before|late|today|tonight)\b/i.test(value)) return null;
      return {
        content: `${s} does not eat or drink ${value}`,
        slot: `avoids:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
      };
    },
  },
  {
    rule: 'profile.language',
    pattern: /\bI (?:also |mostly |mainly )?speak ([A-Z][a-z]+(?:(?:,| and| &) [A-Z][a-z]+)*)/,
    build: (m, s) =>
      LANGUAGE.test(m[1]!)
        ? {
            content: `${s} speaks ${m[1]}`,
            slot: `language:${slotKey(m[1]!)}`,
            value: m[1]!,
            polarity: 1,
            exclusive: false,
          }
        : null,
  },
  {
    rule: 'profile.language',
    pattern:
      /\bmy (?:native|first|mother) (?:language|tongue) is ([A-Z][a-z]+)|\bI(?:'m| am) (?:a )?native ([A-Z][a-z]+) speaker|\bI(?:'m| am) fluent in ([A-Z][a-z]+)/,
    build: (m, s) => {
      const lang = m[1] ?? m[2] ?? m[3]!;
      return {
        content: m[3] ? `${s} is fluent in ${lang}` : `${s}'s native language is ${lang}`,
        slot: `language:${slotKey(lang)}`,
        value: lang,
        polarity: 1,
        exclusive: false,
      };
    },
  },
  {
    rule: 'profile.tools',
    pattern:
      /\bmy (?:editor|ide|os|operating system|laptop|computer|machine|phone|shell|terminal|stack|tech stack|setup|language of choice|go-to language|main language) is (?:an? )?([\w+#.\s-]+)/i,
    build: (m, s) => {
      const what = /my ([\w\s-]+?) is/i.exec(m[0])![1]!.toLowerCase();
      const value = words(short(m[1]!), 5);
      return value
        ? { content: `${s}'s ${what} is ${value}`, slot: `tool:${slotKey(what)}`, value, polarity: 1, exclusive: true }
        : null;
    },
  },
  {
    rule: 'profile.tools',
    pattern:
      /^(?:I (?:mainly |mostly |usually |always |only |exclusively )?(?:use|code in|program in|write code in|develop (?:on|in)|work (?:on|in)))\s+((?:a |an )?[A-Z][\w+#.-]*(?:\s(?:[A-Z][\w+#.-]*|\d[\w.]*|Code|Studio))*)(?:\s+(?:for|at|as|on|every|daily)\b.*)?[.!]?$/,
    build: (m, s) => {
      const value = m[1]!.trim();
      return {
        content: `${s} uses ${value}${/\bfor\b/.test(m[0]) ? ` ${/\bfor\b.*$/.exec(m[0])![0].replace(/[.!]$/, '')}` : ''}`,
        slot: `tool:${slotKey(value)}`,
        value,
        polarity: 1,
        exclusive: false,
      };
    },
  },
];
