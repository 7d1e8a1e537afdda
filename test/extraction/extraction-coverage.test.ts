// First-person statements of what the speaker does, did, likes or has, said in the shapes chat
// uses (docs/extraction.md): each becomes a whole, true memory about the speaker, and the
// look-alikes that say nothing lasting still give none. The sentences are real LoCoMo turns.
import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../server/core/extraction/heuristics.ts';
import { T0 } from '../helpers/store.ts';

const memories = (text: string, speaker: string) => extractFacts(text, speaker, T0).map((f) => f.content);

describe('statements the rules read as the speaker says them in chat', () => {
  it('a past action with its "I" dropped, also "lost" and a quoted title', () => {
    expect(memories('Lost my job as a banker yesterday', 'Jon')).toEqual([
      'Jon lost their job as a banker on 31 December 2025',
    ]);
    expect(memories('Just finished "A Dance with Dragons" and it\'s a good story.', 'Tim')).toEqual([
      'Tim finished "A Dance with Dragons"',
    ]);
  });

  it('a statement with a passing question after a dash, not one asking for help', () => {
    expect(memories('FYI, I finished another pottery project - want to see a pic?', 'Melanie')).toEqual([
      'Melanie finished another pottery project',
    ]);
    expect(
      memories('Oh, and BTW, I started my own online clothing store not so long ago - pretty cool, huh?', 'Gina'),
    ).toEqual(['Gina started their own online clothing store not so long ago']);
    expect(memories("I'm trying to figure out how to pick the right ones - any advice on that?", 'Tim')).toEqual([]);
  });

  it('a hobby, passion or favourite said the other way round, not a pointer', () => {
    expect(memories('Playing video games and watching movies are my main hobbies.', 'Nate')).toEqual([
      "Nate's main hobbies are playing video games and watching movies",
    ]);
    expect(memories('Painting landscapes and still life is my favorite!', 'Melanie')).toEqual([
      "Melanie's favorite is painting landscapes and still life",
    ]);
    expect(memories('Acting was my first passion, but now I really shine in writing.', 'Joanna')).toContain(
      "Joanna's first passion was acting",
    );
    expect(memories('Epic adventures and magical worlds are my thing.', 'Tim')).toEqual([
      "Epic adventures and magical worlds are Tim's thing",
    ]);
    expect(memories('Yeah, that one was my favorite!', 'Joanna')).toEqual([]);
  });

  it('a clause cut before "but I…" keeps no dash at its end', () => {
    expect(
      memories(
        "Thanks, Joanna! I've been having a blast and preparing for other tournaments, so I've been training every morning - but I'm loving it!",
        'Nate',
      ),
    ).toContain('Nate has been training every morning');
  });

  it('"to help me" inside a statement is no request; a tool wanted to help is', () => {
    expect(memories("I've been taking a poetry class lately to help me put my feelings into words.", 'Maria')).toEqual([
      'Maria has been taking a poetry class lately to help Maria put their feelings into words',
    ]);
    expect(memories("I'm looking for a tool to help me debug this", 'User')).toEqual([]);
  });

  it('"tried my hand at" something is an event; trying a fix is of the moment', () => {
    expect(memories('I tried my hand at surfing for the first time- it was so exciting!', 'Maria')).toEqual([
      'Maria tried their hand at surfing for the first time- it was so exciting',
    ]);
    expect(memories("I tried adding an index but it's still slow", 'User')).toEqual([]);
  });
});
