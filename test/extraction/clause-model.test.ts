// The fitted clause model (docs/extraction.md#which-clauses-become-memories): which clauses'
// facts become memories. Statements no rule reads are kept whole when the model scores them high;
// words to the listener never are; the rules with slots of their own are never second-guessed;
// the committed weights match the features the code computes.
import { describe, expect, it } from 'vitest';
import {
  clauseFeatures,
  clauseScore,
  clauseTokens,
  clauseWords,
  FEATURE_NAMES,
  keepsClause,
  turnShape,
  type ClauseReading,
} from '../../server/core/extraction/clause-features.ts';
import { CLAUSE_MODEL } from '../../server/core/extraction/clause-weights.ts';
import { extractFacts } from '../../server/core/extraction/heuristics.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
const extract = (text: string, subject = 'User') => extractFacts(text, subject, T0).map((f) => f.content);

const reading = (raw: string, rule: string): ClauseReading => ({
  raw,
  rule,
  content: raw,
  speaker: 'User',
  subject: 'User',
  index: 0,
  count: 1,
  dated: false,
  turn: turnShape(raw),
});

describe('the clause model', () => {
  it('keeps whole a lasting statement no rule reads, not fragments and passing remarks', () => {
    expect(extract("I've been sober for two years now", 'Jon')).toEqual(['Jon has been sober for two years now']);
    expect(extract('Planning #apollo step 3 with @bob')).toEqual([]);
    expect(extract('Marathon training is going well.')).toEqual([]);
  });

  it('never keeps whole what is said to the listener or tried for the moment', () => {
    expect(extract("I'm here for you if you need anything")).toEqual([]);
    expect(extract("I'm excited for you and your family!")).toEqual([]);
    expect(extract("I've been trying to get the Docker build to work all morning")).toEqual([]);
  });

  it('drops what the softer rules read when the model scores it low, keeps what it scores high', () => {
    const low = reading('Haha, that sounds so fun, I guess so!', 'statement.first_person');
    const high = reading('I adopted a rescue dog named Max from the shelter last year', 'statement.first_person');
    const score = (r: ClauseReading) => clauseScore(clauseFeatures(r), clauseWords(clauseTokens(r.raw)));
    expect(score(high)).toBeGreaterThan(score(low));
    expect(keepsClause(high)).toBe(true);
    expect(keepsClause(low)).toBe(false);
  });

  it('never second-guesses the rules with slots of their own', () => {
    const never = { ...CLAUSE_MODEL, bias: -100 };
    for (const rule of ['health.allergy', 'diet.is', 'identity.name', 'place.lives', 'work.job', 'state.quit'])
      expect(keepsClause(reading('I am allergic to peanuts', rule), never)).toBe(true);
    expect(keepsClause(reading('I love hiking in the hills', 'preference.like'), never)).toBe(false);
  });

  it('has one committed weight per feature the code computes, and a threshold for each kind of fact', () => {
    expect(CLAUSE_MODEL.weights).toHaveLength(FEATURE_NAMES.length);
    expect(clauseFeatures(reading('I went camping', 'event.past'))).toHaveLength(FEATURE_NAMES.length);
    expect(CLAUSE_MODEL.threshold).toBeGreaterThan(0);
    expect(CLAUSE_MODEL.threshold).toBeLessThan(1);
    expect(CLAUSE_MODEL.wholeThreshold).toBeGreaterThan(0);
    expect(CLAUSE_MODEL.wholeThreshold).toBeLessThan(1);
  });

  it('reads a word the model knows only as a word, not as an object property', () => {
    expect(clauseScore([], ['constructor', 'tostring', '__proto__'], { bias: 0, weights: [], words: {} })).toBe(0.5);
  });
});
