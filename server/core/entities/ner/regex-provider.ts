// The `regex` provider: mentions, hashtags, emails, URLs and explicit dates. Always on, no
// dependencies, a few microseconds per turn, so it runs on the hot path.
import { displayName, EntityType, type NerEntity, type SyncNerProvider } from '../types.ts';

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const DAY = '(?:[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?';

// Confidence: structured patterns are near-certain, above any statistical provider, so a
// regex span wins an overlap (compromise calls "@bob" a person; it is a mention).
const PATTERNS: { type: EntityType; confidence: number; re: RegExp }[] = [
  {
    type: EntityType.Email,
    confidence: 0.99,
    re: /(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g,
  },
  { type: EntityType.Url, confidence: 0.98, re: /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/gi },
  // Not after a word character, so the "@" of an email is not a mention.
  { type: EntityType.Mention, confidence: 0.95, re: /(?<![\w@.])@[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,48}[A-Za-z0-9_])?/g },
  // A tag must start with a letter: "#1" and "#42" are numbers, not topics.
  { type: EntityType.Hashtag, confidence: 0.95, re: /(?<![\w#&])#[\p{L}_][\p{L}\p{N}_-]{0,99}/gu },
  { type: EntityType.Date, confidence: 0.9, re: /\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b/g },
  {
    type: EntityType.Date,
    confidence: 0.9,
    re: /\b(?:0?[1-9]|[12]\d|3[01])\/(?:0?[1-9]|[12]\d|3[01])\/(?:\d{4}|\d{2})\b/g,
  },
  { type: EntityType.Date, confidence: 0.9, re: new RegExp(`\\b${MONTH}\\.? ${DAY}(?:,? \\d{4})?\\b`, 'g') },
  { type: EntityType.Date, confidence: 0.9, re: new RegExp(`\\b${DAY} (?:of )?${MONTH}(?:,? \\d{4})?\\b`, 'g') },
];

/** Punctuation that ends a sentence rather than a URL or a handle. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

export function regexEntities(text: string): NerEntity[] {
  const found: NerEntity[] = [];
  for (const { type, confidence, re } of PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      let surface = m[0];
      if (type === EntityType.Url || type === EntityType.Mention) surface = surface.replace(TRAILING, '');
      const name = displayName(surface, type);
      if (!name) continue;
      found.push({
        text: surface,
        name,
        type,
        start: m.index,
        end: m.index + surface.length,
        confidence,
        provider: 'regex',
      });
    }
  }
  return found;
}

export const regexProvider: SyncNerProvider = { name: 'regex', extract: regexEntities };
