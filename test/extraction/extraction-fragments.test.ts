// No fragments and no false facts (docs/extraction.md): the sentences here are real turns from
// LoCoMo and BEAM whose rules once kept a broken cut ("Melanie bought on 7 May 2023 remind them
// of family love") or a claim the speaker never made ("Melanie has kids" from "for when I have
// kids"). Each one is read by the rules with every candidate kept (`keep: () => true`), so what is
// checked is what the rules make of it, whatever the fitted model later keeps.
import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../server/core/extraction/heuristics.ts';

const AT = Date.parse('2023-05-08');
/** Every candidate the rules read from a turn of Melanie's, as its sentence. */
const candidates = (text: string) => extractFacts(text, 'Melanie', AT, { keep: () => true }).map((f) => f.content);

describe('a relative clause keeps its object', () => {
  it('"X I bought yesterday" is "bought X", dated; a vague or phrase-long head is not the object', () => {
    expect(candidates('These figurines I bought yesterday remind me of family love.')).toEqual([
      'Melanie bought these figurines on 7 May 2023',
    ]);
    expect(candidates("Here's a pic of a cake I made recently")).toEqual(['Melanie made a cake']);
    expect(candidates("I'm finally in the study abroad program I applied for")).toEqual([
      'Melanie applied for the study abroad program',
    ]);
    expect(candidates('It reminds me of a trip I took last summer')).toEqual(['Melanie took a trip']);
  });

  it('"something I love is awesome" is not a liking of "is awesome"', () => {
    expect(candidates('Being my own boss and doing something I love is awesome')).toEqual([
      'Melanie said being their own boss and doing something Melanie loves is awesome',
    ]);
    expect(candidates("That's what I like to hear")).toEqual(["Melanie said that's what Melanie likes to hear"]);
  });

  it('"causes I believe in" keeps "I believe": only a leading "I believe (that) X" is dropped', () => {
    expect(candidates('I use my influence and resources to help causes I believe in')).toEqual([
      'Melanie uses their influence and resources to help causes Melanie believes in',
    ]);
  });
});

describe('a condition or a quotation is no possession', () => {
  it('"for when I have kids" says no kids; the whole clause is what was said', () => {
    expect(candidates("I'm creating a library for when I have kids.")).toEqual([
      'Melanie is creating a library for when Melanie has kids',
    ]);
    expect(candidates('so if I have 10 problems to solve').some((c) => c.startsWith('Melanie has'))).toBe(false);
  });

  it('"I have" inside a quoted example sentence is not the speaker\'s', () => {
    const said = candidates(
      'For example, I want to match "machine learning" in the sentence "I have experience in machine learning algorithms."',
    );
    expect(said.some((c) => c.startsWith('Melanie has experience'))).toBe(false);
  });

  it('"I have developed X" is an event, not a possession; "I have faith in you" is nothing', () => {
    expect(candidates('I have developed a video presentation to teach how to style my fashion pieces, btw')).toEqual([
      'Melanie developed a video presentation to teach how to style their fashion pieces',
    ]);
    expect(candidates('I have faith in you')).toEqual([]);
  });
});

describe('"my X is" only when "my X" is the subject', () => {
  it('"Losing my job was hard" is not "Melanie\'s job is hard"', () => {
    expect(candidates('Losing my job was hard')).toEqual([]);
    expect(candidates('Sourcing trendy pieces for my store was a big hurdle')).toEqual([
      'Melanie said sourcing trendy pieces for their store was a big hurdle',
    ]);
    expect(candidates('I\'m trying to fix the "ECONNREFUSED" error that occurs when my app is deployed')).toEqual([]);
    expect(candidates('Yeah, my job is hard')).toEqual(["Melanie's job is hard"]);
  });
});

describe('plans and events that say nothing', () => {
  it('an error of the moment, words to the listener and "doing alright" are no plan', () => {
    expect(candidates("I'm getting an error when I try to verify the token")).toEqual([]);
    expect(
      candidates(
        "However, I'm getting a 500 Internal Server Error due to a missing Content-Type header in the requests",
      ),
    ).toEqual([]);
    expect(candidates("Got it Nate, I'll see you soon")).toEqual([]);
    expect(candidates("I'm doing alright")).toEqual([]);
  });

  it('a verb whose object went missing is nothing: "I saved some", "I joined in"', () => {
    expect(candidates('Yeah, I saved some')).toEqual([]);
    expect(candidates('I joined in')).toEqual([]);
  });
});

describe('a long value is cut where a phrase opens, not inside it', () => {
  it('ends before the clause or phrase it cannot hold', () => {
    expect(candidates('I took Max for a walk and ran into this super nice couple who had a dog')).toEqual([
      'Melanie took Max for a walk and ran into this nice couple',
    ]);
    expect(
      candidates(
        'On another note, I made vegan ice cream last Friday and shared it with some people in my vegan diet group',
      ),
    ).toEqual(['Melanie made vegan ice cream on 5 May 2023 and shared it with some people']);
    expect(candidates('Joined a travel club and, like I said, working on studies')).toEqual([
      'Melanie joined a travel club',
    ]);
  });

  it('a number with a thousands comma is one number', () => {
    expect(
      candidates(
        "I'm trying to optimize the performance of my app to handle 1,000+ concurrent users with stable latency",
      ),
    ).toEqual([
      'Melanie is trying to optimize the performance of their app to handle 1,000+ concurrent users with stable latency',
    ]);
  });
});

describe('examples, wishes and remarks', () => {
  it('an example or a wish under a condition is nothing: "For example, I want…", "I would … if I could"', () => {
    expect(candidates('I would get two turtles today if I could')).toEqual([]);
    expect(
      candidates(
        'For example, I want to match "machine learning" in the sentence "I have experience in machine learning algorithms."',
      ),
    ).toEqual([]);
  });

  it('"Been a busy week" drops "It\'s", not "I\'ve"; "Been super busy with the shelter lately" is the speaker\'s', () => {
    expect(candidates('Been a busy week since we talked')).toEqual(['Melanie said been a busy week since they talked']);
    expect(candidates('Been super busy with the shelter lately')).toEqual([
      'Melanie has been busy with the shelter lately',
    ]);
  });

  it('a relative clause whose verb goes on is not read as its object: "my characters I worked so hard on"', () => {
    expect(candidates('Seeing my characters I worked so hard on come alive was my favorite part')).toEqual([
      'Melanie said seeing their characters Melanie worked so hard on come alive was their favorite part',
    ]);
    expect(candidates('Just finished something - pretty wild journey')).toEqual([
      'Melanie just finished something - pretty wild journey',
    ]);
  });
});

describe('an activity the speaker finds a way to express themselves is a liking, kept', () => {
  it('"Painting\'s a fun way to express my feelings" is kept; "Cooking is a great way to chill" is a remark', () => {
    const turn =
      "Thanks, Caroline! Painting's a fun way to express my feelings and get creative. It's a great way to relax after a long day.";
    const kept = extractFacts(turn, 'Melanie', AT);
    expect(kept.map((f) => [f.rule, f.content])).toEqual([
      ['preference.way', 'Melanie finds painting a fun way to express their feelings and get creative'],
    ]);
    expect(kept[0]!.slot).toBe('likes:painting');
    expect(candidates('Playing games is my escape from life struggles')).toEqual([
      'Melanie finds playing games an escape from life struggles',
    ]);
    expect(candidates('Cooking is a great way to chill and be creative.')).toEqual([
      'Melanie said cooking is a great way to chill and be creative',
    ]);
  });
});

describe('sentences that read right', () => {
  it('names the speaker as an object ("they motivate me" is not "they motivate them"); "me-time" stays', () => {
    expect(
      candidates('My friends, family and mentors are my rocks – they motivate me and give me the strength to push on'),
    ).toEqual([
      "Melanie's friends, family and mentors are their rocks – they motivate Melanie and give Melanie the strength to push on",
    ]);
    expect(candidates("They've been my rock, giving me words of encouragement and reminding me I'm not alone")).toEqual(
      [
        "Melanie said They've been their rock, giving Melanie words of encouragement and reminding them Melanie is not alone",
      ],
    );
    expect(candidates('I\'ve been taking regular "me-time" walks at the park nearby')).toEqual([
      'Melanie has been taking regular "me-time" walks at the park nearby',
    ]);
  });

  it('an adverb in "-ly" is no verb: "I slowly formed" is not "Melanie slowlies formed"', () => {
    expect(candidates('I slowly formed connections by listening and showing compassion')).toEqual([
      'Melanie slowly formed connections by listening and showing compassion',
    ]);
  });

  it('"the line where I\'m trying to…" is no task of the speaker\'s; "getting a bit worried" is no plan', () => {
    expect(
      candidates("The error is happening on the line where I'm trying to iterate over the transactions variable"),
    ).toEqual([
      'Melanie said the error is happening on the line where Melanie is trying to iterate over the transactions variable',
    ]);
    expect(
      candidates("I'm getting a bit worried about meeting the sprint deadline for the MVP backend completion"),
    ).toEqual(['Melanie is getting a bit worried about meeting the sprint deadline for the MVP backend completion']);
  });
});

describe('more fragments from the sample', () => {
  it('"our" is the subject\'s too; "I\'m a huge fan" (of nothing said) and "going for my dreams" are nothing', () => {
    expect(candidates('Our kids are our future')).toEqual(["Melanie's kids are their future"]);
    expect(candidates('I just left for our European vacation')).toEqual(['Melanie left for their European vacation']);
    expect(candidates("I'm a huge fan")).toEqual([]);
    expect(candidates("I'm going for my dreams")).toEqual([]);
  });

  it("a long task is cut where a phrase opens; a date's comma is no cut, and the date is said once", () => {
    expect(
      candidates(
        "I'm trying to integrate Google Analytics v4 with anonymized IP tracking to monitor user sessions and bounce rate under 40% on my portfolio site",
      ),
    ).toEqual([
      'Melanie is trying to integrate Google Analytics v4 with anonymized IP tracking to monitor user sessions and bounce rate',
    ]);
    expect(candidates("I'm getting ready for the scheduled peer review on April 15, 2024")).toEqual([
      'Melanie is getting ready for the scheduled peer review on 15 April 2024',
    ]);
    expect(candidates("I'm trying to set up the release for March 3, 2024 with the new pipeline")).toEqual([
      'Melanie is trying to set up the release for 3 March 2024 with the new pipeline',
    ]);
    expect(candidates('I moved to Berlin in 2019, 2020 was hard')).toEqual(['Melanie moved to Berlin in 2019']);
  });
});

describe('what the speaker said around the claim', () => {
  it('the listener named at the start or the end is no part of the claim', () => {
    expect(
      candidates(
        "Yeah, Caroline, my family's been great - their love and support really helped me through tough times",
      ),
    ).toEqual(["Melanie's family's been great - their love and support helped Melanie through tough times"]);
    expect(candidates("I've had some tough times with my business, Jon")).toEqual([
      'Melanie has had some tough times with their business',
    ]);
  });

  it('"Just been helping" is "has just been helping"; "Wish I had…" is a wish, nothing', () => {
    expect(
      candidates('Just been helping some friends reset their high scores at the international tournament'),
    ).toEqual(['Melanie has just been helping some friends reset their high scores at the international tournament']);
    expect(candidates('Wish I had a vacation lined up, but right now my writing is consuming me')).toEqual([]);
  });

  it('a title keeps its closing quote; a stray dash or quote at a cut goes; "I figured" is no event', () => {
    expect(candidates('I just watched "Little Women" and it was amazing')).toEqual(['Melanie watched "Little Women"']);
    expect(candidates('And, I bought a cross necklace to feel closer to my faith- which has made me happy')).toEqual([
      'Melanie bought a cross necklace to feel closer to their faith',
    ]);
    expect(candidates("So I figured I'd try them out with my family and friends")).toEqual([
      'Melanie figured Melanie would try them out with their family and friends',
    ]);
  });
});

describe('a coding chat: problems of the moment are no plans, settings are said whole', () => {
  it('"running into issues", "seeing inconsistent numbers", "I\'ll run the tests now" are nothing; "I\'ll start with X" is no plan', () => {
    expect(candidates("I'm running into some issues with the configuration")).toEqual([]);
    expect(candidates("I'm seeing some inconsistent latency numbers")).toEqual([]);
    expect(candidates("Sure, I'll run the unit tests now")).toEqual([]);
    expect(candidates("I'll start with the coin toss problem")).toEqual([
      'Melanie will start with the coin toss problem',
    ]);
    expect(candidates("I'd like to ensure that I have enough time to complete each task")).toEqual([]);
  });

  it('a vague object is nothing ("found the bug", "made some mistakes"); a claim that says more around it stays', () => {
    expect(candidates('I found the bug.')).toEqual([]);
    expect(candidates('I made some mistakes, I guess.')).toEqual([]);
    expect(candidates('I implemented various features.')).toEqual([]);
    expect(candidates("I'm still seeing some issues")).toEqual([]);
    expect(candidates("I've been using Sentry error reports to identify the problems")).toEqual([
      'Melanie has been using Sentry error reports to identify the problems',
    ]);
  });

  it('catching up is nothing until the news is said: "been keeping busy since we last talked", "got some great news"', () => {
    expect(candidates("I've been keeping busy since we last talked!")).toEqual([]);
    expect(candidates("I've had quite the adventure since we spoke last.")).toEqual([]);
    expect(candidates('I got some great news to share!')).toEqual([]);
    expect(candidates("We've had a wild few days since we talked.")).toEqual([]);
    expect(candidates("Since our last chat, I've been looking into counseling work more.")).toEqual([
      'Melanie has been looking into counseling work more since their last chat',
    ]);
  });

  it('a promise or offer of the moment is nothing; a lasting "will always remember" and a dated plan stay', () => {
    expect(candidates("I'll do my best to find some resources for you.")).toEqual([]);
    expect(candidates("I'll definitely check it out - looks like a great book")).toEqual([]);
    expect(candidates("I'm here to lend an ear or help out however I can.")).toEqual([]);
    expect(candidates("I'll make sure to format them with syntax highlighting")).toEqual([]);
    expect(candidates("I'll definitely reach out if I need more suggestions")).toEqual([]);
    expect(candidates("I'll always remember our camping trip when we saw the Perseid meteor shower")).toEqual([
      'Melanie will always remember their camping trip when they saw the Perseid meteor shower',
    ]);
    expect(
      candidates("I'll reach out to a colleague who knows web development and set up a meeting next week"),
    ).toEqual([
      'Melanie will reach out to a colleague who knows web development and set up a meeting in the week of 15 May 2023',
    ]);
  });

  it('a second verb sharing the "I" agrees ("is using X and wants to"); not after "to" or a modal', () => {
    expect(candidates("I'm using Python and have access to various libraries")).toEqual([
      'Melanie is using Python and has access to various libraries',
    ]);
    expect(candidates("I'm configuring my Flask app for production and want to ensure it's set up correctly")).toEqual([
      "Melanie is configuring their Flask app for production and wants to ensure it's set up correctly",
    ]);
    expect(candidates("I'll also run the numbers through analysis software and have a peer review them")).toEqual([
      'Melanie will also run the numbers through analysis software and have a peer review them',
    ]);
    expect(candidates("I'm learning to bake bread and have it ready by Sunday")).toEqual([
      'Melanie is learning to bake bread and have it ready by 14 May 2023',
    ]);
  });

  it('"I need" is "needs" (a present in "-ed"); "I learnt" is a past, not "learnts"', () => {
    expect(candidates('I found out that I need to add CORS headers to my request')).toEqual([
      'Melanie found out that Melanie needs to add CORS headers to their request',
    ]);
    expect(candidates('I learnt that my own happiness is the most important thing')).toEqual([
      'Melanie learnt that their own happiness is the most important thing',
    ]);
  });

  it('"I\'d been wanting" is "had been wanting"; "I\'d love" stays "would love"', () => {
    expect(candidates("I'd been wanting to try yoga for a while and finally took the plunge")).toEqual([
      'Melanie had been wanting to try yoga for a while and finally took the plunge',
    ]);
    expect(candidates("I'd love to support those with similar issues")).toEqual([
      'Melanie would love to support those with similar issues',
    ]);
  });

  it('a quoted error message is one piece: no value ends inside it; a quote the cut leaves open goes', () => {
    expect(
      candidates('I fixed the "KeyError: \'suggestions\'" in the JSON response when no suggestions were generated'),
    ).toEqual([
      'Melanie fixed the "KeyError: \'suggestions\'" in the JSON response when no suggestions were generated',
    ]);
    expect(
      candidates(
        "I'm trying to anticipate common errors like “Uncaught TypeError: Cannot read property 'classList' of null”",
      ),
    ).toEqual([
      "Melanie is trying to anticipate common errors like “Uncaught TypeError: Cannot read property 'classList' of null”",
    ]);
    // The private-use marks the cut works with, typed into a turn, are dropped: never read as a mark.
    expect(candidates('I fixed the \uE0000\uE001 "KeyError: x" in the form')).toEqual([
      'Melanie fixed the 0 "KeyError: x" in the form',
    ]);
    // Over 80 characters, the quote is no piece: the cut ends inside it and its open quote goes.
    const [cut, ...rest] = candidates(`I fixed the "${'very '.repeat(30)}long error`);
    expect(rest).toEqual([]);
    expect(cut).toMatch(/^Melanie fixed the very very/);
    expect(cut).not.toMatch(/["“”]/);
  });

  it('"which I prefer" is a relative clause; a URL, a plural and "every Friday" are kept as said', () => {
    expect(
      candidates(
        "I'm using SQLite for lightweight persistence, which I prefer over heavier DBMS for this prototype stage",
      ),
    ).toEqual([
      'Melanie is using SQLite for lightweight persistence, which Melanie prefers over heavier DBMS for this prototype stage',
    ]);
    expect(candidates('My frontend is built with React and is running on http://localhost:5173')).toEqual([
      "Melanie's frontend is built with React and is running on http://localhost:5173",
    ]);
    expect(candidates('My database credentials are stored in a .env file')).toEqual([
      "Melanie's database credentials are stored in a .env file",
    ]);
    expect(candidates('I have weekly code reviews scheduled every Friday at 3 PM Palau time')).toEqual([
      'Melanie has weekly code reviews scheduled every Friday at 3 PM Palau time',
    ]);
  });

  it('an adjective before a comma opens a list, not the end of the value', () => {
    expect(candidates('I prefer simple, minimal dependencies')).toEqual([
      'Melanie prefers simple, minimal dependencies',
    ]);
    expect(candidates('I prefer using lightweight, dependency-free solutions over heavy frameworks')).toEqual([
      'Melanie prefers using lightweight, dependency-free solutions over heavy frameworks',
    ]);
    expect(candidates('I love hiking, biking and swimming')).toEqual(['Melanie loves hiking']);
  });
});

describe('"Me and my X" is the speaker\'s', () => {
  it('is not a fact about X alone', () => {
    expect(candidates('Me and my friends went camping last weekend')).toEqual([
      'Melanie went camping on the weekend of 6 May 2023 with their friends',
    ]);
    expect(candidates('Me and my husband are planning a trip')).toEqual([
      'Melanie is planning a trip with their husband',
    ]);
  });
});

describe('an event needs its object', () => {
  it('"I made it in pottery class" is no event of a thing named elsewhere: the clause is said whole', () => {
    const read = (text: string) =>
      extractFacts(text, 'Melanie', AT, { keep: () => true }).map((f) => [f.rule, f.content]);
    expect(read('Yeah, I made it in pottery class yesterday')).toEqual([
      ['statement.first_person', 'Melanie made it in pottery class on 7 May 2023'],
    ]);
    expect(read('I made this bowl in my class')).toEqual([['event.past', 'Melanie made this bowl in their class']]);
  });
});

describe('hostile input stays linear', () => {
  /** The fastest of five reads of `text`, in ms. */
  const best = (text: string) => {
    let fastest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      extractFacts(text, 'Melanie', AT);
      fastest = Math.min(fastest, performance.now() - start);
    }
    return fastest;
  };

  it('a run of spaces is read in linear time: four times as long costs well under sixteen times as much', () => {
    const turn = (spaces: number) => `and${' '.repeat(spaces)}my job is hard x`;
    const short = best(turn(20_000));
    const long = best(turn(80_000));
    expect(long / Math.max(short, 2)).toBeLessThan(10);
  });

  it('a turn of thousands of dates in one sentence is read in linear time too', () => {
    const turn = (dates: number) => `I moved to ${'May 1 '.repeat(dates)}, 2020`;
    const short = best(turn(2_000));
    const long = best(turn(8_000));
    expect(long / Math.max(short, 2)).toBeLessThan(10);
  });

  it('the chat shapes read by the rules stay linear: dashes before a question, a long subject, trailing marks', () => {
    // Eight times as long: linear is about 8x, quadratic 64x; the margin absorbs a loaded machine.
    const turn = (n: number) =>
      [
        `I finished a project${' - and more'.repeat(n)} - want to see?`,
        `${'painting and '.repeat(n)}drawing are my main hobbies`,
        `I need ${'a tool and '.repeat(n)}to help me`,
        `I've been busy${' -'.repeat(n)}${' '.repeat(n)}x -`,
      ].join('\n');
    const short = best(turn(1_000));
    const long = best(turn(8_000));
    expect(long / Math.max(short, 2)).toBeLessThan(24);
  });
});
