// The gist of a turn for a session digest: the sentence that carries the speaker's request or
// decision (a question, "can you…", "I'll…", "let's…"), else its first sentence of substance;
// code, pleasantries and openers such as "Sure!" are left out. Pure text work, no store.

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Sentences that say nothing on their own: thanks, greetings, bare acknowledgements. */
const PLEASANTRY =
  /^(?:thanks?(?: you)?|thank you|great|awesome|perfect|cool|ok(?:ay)?|sure|yes|yeah|no|hmm+|hi|hello|hey|got it|sounds good|that makes sense|i see|nice|wow|absolutely|certainly|of course|good question|great question)\b[^a-z0-9]*(?:[a-z]+[^a-z0-9]*){0,4}$/i;
/** An assistant's opener before what it says: "Certainly!", "Sure, Craig!", "Great question." */
const OPENER =
  /^(?:(?:certainly|sure|absolutely|of course|great|good|excellent|yes|no problem|happy to help|i'd be happy to help|great question|good question|thanks for sharing[^.!?]*)[,!.]?\s*(?:[A-Z][a-z]+[!.,]\s*)?)+/i;
/** What a request sounds like, and (weaker) what a wish or a decision sounds like. */
const ASKS = /\?|\b(?:can you|could you|would you|help me|how (?:do|can|should) i|should i|please)\b/i;
const DECIDES =
  /\b(?:i need|i want|i'd like|i would like|i'm trying|i am trying|let's|let us|i'll|i will|i've decided|i decided|i'm going to|i am going to|i chose|i've chosen|i'm planning|i plan|we'll|we will)\b/i;

const FENCED = /```[\s\S]*?(?:```|$)/g;

/** The text without code blocks (a block ends a sentence) and with spaces on one line. */
export function prose(text: string): string {
  return text
    .replace(FENCED, '\n\n')
    .replace(/`([^`\n]{1,60})`/g, '$1')
    .replace(/[^\S\n]+/g, ' ')
    .trim();
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Sentences with words in them, each on one line; one that only introduces a code block ("Here's my code:") is left out. */
function sentences(text: string): string[] {
  return [...segmenter.segment(text)]
    .map((s) => oneLine(s.segment))
    .filter((s) => /[A-Za-z0-9]/.test(s) && !/:$/.test(s));
}

/** Words of four letters or more that are not the request's own ("help", "that", "with"). */
const HOLLOW = new Set(
  'help with that this please could would should what about there here have just some also make sure know'.split(' '),
);
const contentWords = (sentence: string) =>
  (sentence.toLowerCase().match(/[a-z0-9][a-z0-9.'-]{3,}/g) ?? []).filter((w) => !HOLLOW.has(w)).length;

/** Words that open a request without saying what it is about ("I'm trying to", "can you help me"). */
const PREAMBLE =
  /^(?:(?:so|hmm+|ok(?:ay)?|well|also|and|but|now|actually|basically),?\s+)*(?:(?:i'm|i am) (?:currently |also |now |still )?(?:trying|planning|looking|hoping|attempting) to |i (?:want|need|would like|'d like|wanted) (?:you )?to |(?:can|could|would) you (?:please )?(?:help me (?:with |to )?|show me how to )?|help me (?:to )?|please )/i;

/** A request without its opening words, first letter kept as written. */
export const withoutPreamble = (sentence: string) => {
  let out = sentence;
  for (let i = 0; i < 3; i++) {
    const next = out.replace(PREAMBLE, '');
    if (next === out || next.length < 12) break;
    out = next;
  }
  return out;
};

/** `text` cut to at most `max` characters at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/**
 * The request or decision of a user's turn, at most `max` characters: the first sentence that
 * asks or decides, with the sentence before it when that one sets the scene and there is room.
 */
export function requestGist(text: string, max = 200): string {
  const said = sentences(prose(text)).filter((s) => !PLEASANTRY.test(s));
  if (said.length === 0) return clip(oneLine(prose(text)), max);
  const asks = said.findIndex((s) => ASKS.test(s));
  const at = asks >= 0 ? asks : said.findIndex((s) => DECIDES.test(s));
  if (at < 0) return clip(said[0]!, max);
  const ask = withoutPreamble(said[at]!);
  const before = at > 0 ? withoutPreamble(said[at - 1]!) : '';
  // "Can you help me with that?" says what only with the sentence before it.
  if (before && contentWords(ask) < 2) return clip(`${before} ${ask}`, max);
  return clip(before && before.length + ask.length + 1 <= max ? `${before} ${ask}` : ask, max);
}

/** What an answer says first, at most `max` characters, without its opener. */
export function answerGist(text: string, max = 140): string {
  const said = sentences(prose(text))
    .map((s) => s.replace(OPENER, '').trim())
    .filter((s) => s.length > 0 && !PLEASANTRY.test(s));
  return clip(said[0] ?? oneLine(prose(text)), max);
}
