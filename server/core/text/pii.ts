// Basic PII detectors: memories that carry an email, a phone number or a street
// address are tagged `pii`, which config can keep out of context.
const DETECTORS = {
  email: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/,
  phone: /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}[\s.-]?\d{0,4}/,
  address:
    /\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Square|Sq)\b\.?|\b(?:Rua|Calle|Via|Rue)\s+[A-Z][\w\s]{2,40}?\s+\d{1,5}\b|\b[A-Z][a-zäöüß]+(?:straße|strasse|weg|gasse|platz)\s+\d{1,5}\b/,
} as const;

export type PiiKind = keyof typeof DETECTORS;

export function detectPii(text: string): PiiKind[] {
  return (Object.keys(DETECTORS) as PiiKind[]).filter((kind) => {
    const match = text.match(DETECTORS[kind]);
    // A phone number has at least 7 digits; shorter digit runs are years, times, counts.
    return match !== null && (kind !== 'phone' || match[0].replace(/\D/g, '').length >= 7);
  });
}

export const PII_TAG = 'pii';

export function withPiiTag(text: string, tags: string[]): string[] {
  return detectPii(text).length > 0 && !tags.includes(PII_TAG) ? [...tags, PII_TAG] : tags;
}
