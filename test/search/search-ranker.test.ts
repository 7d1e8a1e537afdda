// The turn ranker: what each feature is for, shown on small conversations, and the date parsing
// the time features rely on.
import { DEFAULT_SPACE } from '../../server/core/kernel/space.ts';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../server/core/kernel/clock.ts';
import { search } from '../../server/core/search/index.ts';
import { analyzeQuery, dateWindow } from '../../server/core/text/query.ts';
import { TURN_FEATURES } from '../../server/core/search/turn-features.ts';
import { placeEventTurns } from '../../server/core/search/event-turns.ts';
import { comparedEventQueries, comparedEvents } from '../../server/core/text/compared-events.ts';
import { conversation } from '../helpers/conversation.ts';

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

describe('dateWindow', () => {
  const now = Date.UTC(2023, 11, 20);
  it('reads days, months, ranges and a month without a year', () => {
    const window = (text: string) => {
      const w = dateWindow(text, now);
      return w && [day(w.from), day(w.to)];
    };
    expect(window('What did she do on 1 May, 2022?')).toEqual(['2022-05-01', '2022-05-01']);
    expect(window('in May 2022')).toEqual(['2022-05-01', '2022-05-31']);
    expect(window('Where was John between August 11 and August 15 2023?')).toEqual(['2023-08-11', '2023-08-15']);
    // The latest December that has begun by now, then the latest June.
    expect(window('What deal did John get in December?')).toEqual(['2023-12-01', '2023-12-31']);
    expect(window('When did Melanie go camping in June?')).toEqual(['2023-06-01', '2023-06-30']);
    expect(dateWindow('in June', Date.UTC(2024, 2, 1))!.from).toBe(Date.UTC(2023, 5, 1));
    expect(window('the forest picture shared on December 1,2023')).toEqual(['2023-12-01', '2023-12-01']);
    expect(window('What did they give him when they met on Aug 15th?')).toEqual(['2023-08-15', '2023-08-15']);
  });

  it('reads weeks and parts of months, spans beside a date, and phrases relative to now', () => {
    const window = (text: string) => {
      const w = dateWindow(text, now);
      return w && [day(w.from), day(w.to)];
    };
    expect(window('What did John do in the last week of May?')).toEqual(['2023-05-25', '2023-05-31']);
    expect(window('Which country was Tim visiting in the second week of November?')).toEqual([
      '2023-11-08',
      '2023-11-14',
    ]);
    expect(window('Which tournament did Nate win in the beginning of November 2022?')).toEqual([
      '2022-11-01',
      '2022-11-10',
    ]);
    // The week before, and the day itself: what was told that day as "last week".
    expect(window('Where was Tim in the week before 16 November 2023?')).toEqual(['2023-11-09', '2023-11-16']);
    expect(window('What did Melanie do last weekend?')).toEqual(['2023-12-16', '2023-12-17']);
    expect(window('What did Melanie do two weeks ago?')).toEqual(['2023-12-03', '2023-12-09']);
    // A whole year selects nothing in a conversation of months: left to the words.
    expect(window('When did John get an ankle injury in 2023?')).toBeNull();
  });

  it('dates an event a query names instead of a date', () => {
    const anchor = (text: string) => analyzeQuery(text, () => undefined, now).anchor;
    expect(anchor('What did Maria do the week before her trip to Spain?')).toEqual({
      terms: ['trip', 'spain'],
      before: true,
      days: 7,
    });
    expect(anchor('Which city was John in before traveling to Chicago?')).toEqual({
      terms: ['traveling', 'chicago'],
      before: true,
      days: 14,
    });
    expect(anchor('When did John meet his teammates after returning from Chicago?')).toMatchObject({
      terms: ['returning', 'chicago'],
      before: false,
    });
    expect(anchor('After how many weeks did Tim reconnect with his friend?')).toBeNull();
    expect(anchor('What did she do before that?')).toBeNull();
    expect(anchor('What did she do the week before 16 November 2023?')).toBeNull(); // a date: a window, not an event
  });

  it('does not take "may" the verb, or a bare month without a clock, for a date', () => {
    expect(dateWindow('I may go hiking', now)).toBeNull();
    expect(dateWindow('May I ask what she likes?', now)).toBeNull();
    expect(dateWindow('I may 5 times have said so', now)).toBeNull();
    expect(dateWindow('What did she paint in June?')).toBeNull();
  });
});

describe('turn ranker', () => {
  it("prefers the named speaker's own turn", async () => {
    const { store, say } = await conversation();
    const melanie = await say('s1', 'Melanie', 'I adopted a rescue greyhound last month.');
    const gina = await say('s1', 'Gina', 'I adopted a rescue greyhound too, a tiny one.');
    const ids = async (query: string) =>
      (await search(store, DEFAULT_SPACE, { query, kinds: ['turn'] })).hits.map((h) => h.id);
    expect((await ids('What rescue greyhound did Gina adopt?'))[0]).toBe(gina.id);
    expect((await ids('What rescue greyhound did Melanie adopt?'))[0]).toBe(melanie.id);
  });

  it('answers a "when" question with the turn that says when', async () => {
    const { store, say } = await conversation();
    await say('s1', 'Jon', 'My pottery class is the best part of my week.');
    const dated = await say('s1', 'Jon', 'I signed up for the pottery class yesterday.');
    await say('s1', 'Jon', 'The pottery class teacher is very patient.');
    const hits = (
      await search(store, DEFAULT_SPACE, { query: 'When did Jon sign up for the pottery class?', kinds: ['turn'] })
    ).hits;
    expect(hits[0]!.id).toBe(dated.id);
  });

  it('finds what was told later about a date: "last week", said in June, answers "the last week of May"', async () => {
    const { store, say, jump } = await conversation({ extractor: { mode: 'heuristic', timezone: 'UTC' } });
    // T0 is 1 January 2026; the talk is on Wednesday 3 June 2026, and its "last week" is 25 to 31 May.
    jump(153);
    await say('s1', 'Melanie', 'My kids keep asking for a puppy.');
    await say('s1', 'Caroline', 'Ha, kids! What have you been up to lately?');
    const told = await say('s1', 'Melanie', 'Last week I took the kids to a pottery workshop downtown.');
    await say('s1', 'Caroline', 'I painted a lot this month, mostly sunsets.');
    await say('s1', 'Melanie', 'Nice. I also finished a book about gardening.');
    const hits = (
      await search(store, DEFAULT_SPACE, { query: 'What did Melanie do in the last week of May?', kinds: ['turn'] })
    ).hits;
    expect(hits[0]!.id).toBe(told.id);
  });

  it('puts facts dated in the window a query names first, without hiding the others', async () => {
    const { store, say, jump } = await conversation({ extractor: { mode: 'heuristic', timezone: 'UTC' } });
    await say('s1', 'Melanie', 'I went to a pottery workshop in Lisbon yesterday.'); // 31 December 2025
    jump(40);
    await say('s2', 'Melanie', 'I went to a pottery workshop in Porto last weekend.'); // the weekend of 7 February 2026
    const facts = async (query: string) =>
      (await search(store, DEFAULT_SPACE, { query, kinds: ['fact'] })).hits.map((h) => h.text);
    expect(await facts('Which pottery workshop did Melanie go to in February 2026?')).toEqual([
      'Melanie went to a pottery workshop in Porto on the weekend of 7 February 2026',
      'Melanie went to a pottery workshop in Lisbon on 31 December 2025',
    ]);
    expect((await facts('Which pottery workshop did Melanie go to in December 2025?'))[0]).toBe(
      'Melanie went to a pottery workshop in Lisbon on 31 December 2025',
    );
  });

  it('takes a month named without a year as the latest such month', async () => {
    const { store, say, jump, setNow } = await conversation();
    // The earlier turn is longer, so on words alone the later one would come first.
    const first = await say(
      's1',
      'Gina',
      'I painted a sunset over the lake with my new brushes and a lot of patience.',
    );
    jump(60);
    const second = await say('s2', 'Gina', 'I painted a sunset over the lake.');
    setNow(second.at + DAY_MS);
    const month = new Date(first.at).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
    const hits = (await search(store, DEFAULT_SPACE, { query: `What did Gina paint in ${month}?`, kinds: ['turn'] }))
      .hits;
    expect(hits[0]!.id).toBe(first.id);
    expect((await search(store, DEFAULT_SPACE, { query: 'What did Gina paint?', kinds: ['turn'] })).hits[0]!.id).toBe(
      second.id,
    );
  });

  it('scores the turns of a named date even when no word matches', async () => {
    const { store, say, jump } = await conversation();
    await say('s1', 'Nate', 'Hey Joanna, the weather is grim.');
    jump(20);
    const news = await say('s2', 'Nate', 'I baked you a cake, it is waiting at the door!');
    const ids = async (query: string) =>
      (await search(store, DEFAULT_SPACE, { query, kinds: ['turn'] })).hits.map((h) => h.id);
    // No word of the query is in that turn: only the date brings it in.
    expect(await ids('What did Nate do for Joanna?')).not.toContain(news.id);
    expect(await ids(`What did Nate do for Joanna on ${day(news.at)}?`)).toContain(news.id);
  });

  it('leaves out the words a question uses about the conversation itself, unless nothing else is left', async () => {
    const terms = (text: string) => analyzeQuery(text, () => undefined).terms;
    expect(
      terms(
        'Can you list the order in which I brought up different aspects of the autocomplete feature across our conversations?',
      ),
    ).toEqual(['autocomplete', 'feature']);
    expect(terms('What did we discuss?')).toEqual(['discuss']);
    // The same words are a topic elsewhere.
    expect(terms('What did Gina order at the restaurant?')).toContain('order');
    expect(terms("What's on Caroline's reading list?")).toContain('list');
    expect(terms('What did Melanie bring to the picnic?')).toContain('bring');
    expect(terms('What items did I add to the cart?')).toContain('items');
    const { store, say } = await conversation();
    // Apart, so neither is scored through the other as its neighbour.
    const topic = await say('s1', 'Christina', 'I am adding city autocomplete to the weather app.');
    await say('s2', 'Christina', 'I love our conversations: you mention different aspects and list items in order.');
    const { hits } = await search(store, DEFAULT_SPACE, {
      query:
        'Can you list the order in which I brought up different aspects of the autocomplete feature across our conversations?',
      kinds: ['turn'],
    });
    expect(hits[0]!.id).toBe(topic.id);
  });

  it("weighs a turn that stated a standing instruction in a user's chat with an assistant, whatever its BM25 rank", async () => {
    const { store, say } = await conversation();
    const ask = (session: string, text: string) => say(session, 'Christina', text);
    const answer = (session: string, text: string) => say(session, 'assistant', text, 'assistant');
    const instruction = await ask('rules', 'Always include error status codes when I ask about API error handling.');
    await answer('rules', 'Noted, I will include them.');
    // More of them than the ranker scores in full: the instruction is scored because it is one.
    const noisy = [];
    for (let i = 0; i < 45; i++) {
      noisy.push(await ask(`work-${i}`, `API error handling broke on call ${i}.`));
      await answer(`work-${i}`, `Call ${i} timed out; retry it.`);
    }
    const features = new Map<number, number[]>();
    const { hits } = await search(
      store,
      DEFAULT_SPACE,
      { query: 'What typical errors should I handle from an API?', kinds: ['turn'] },
      { turnFeatures: features },
    );
    const standing = TURN_FEATURES.indexOf('standing');
    expect(features.get(instruction.id)?.[standing]).toBe(1);
    // The noisy turns match as well and are shorter: the instruction comes first for what it is.
    expect(hits[0]!.id).toBe(instruction.id);
    expect(noisy.map((t) => t.id)).toContain(hits[1]!.id);
    expect(features.get(hits[1]!.id)?.[standing]).toBe(0);
  });

  it("ranks the assistant's answer first when a question asks what the assistant recommended", async () => {
    const { store, say } = await conversation();
    const ask = (session: string, text: string) => say(session, 'Christina', text);
    const answer = (session: string, text: string) => say(session, 'assistant', text, 'assistant');
    await ask('plan', 'Can you help me plan the first weeks?');
    const advice = await answer(
      'plan',
      'I recommend structuring the sprints around the layout and navigation: wireframes on day one, the navigation bar by day four, a review on day ten.',
    );
    // "recommend" is said elsewhere too: the answer's one extra word is not enough to outrank the user's own turns.
    for (let i = 0; i < 4; i++) await ask(`books-${i}`, `Can you recommend a book on design, number ${i}?`);
    const own = [];
    for (let i = 0; i < 6; i++) {
      own.push(await ask(`work-${i}`, `I am structuring sprint ${i} around the layout and navigation again.`));
      await answer(`work-${i}`, `Noted for sprint ${i}.`);
    }
    const ranked = async (query: string, askedAssistant?: number) => {
      const features = new Map<number, number[]>();
      const tuning = askedAssistant === undefined ? undefined : { turns: { chatWeights: { askedAssistant } } };
      const { hits } = await search(
        store,
        DEFAULT_SPACE,
        { query, kinds: ['turn'] },
        { turnFeatures: features, tuning },
      );
      return { ids: hits.map((h) => h.id), asked: features.get(advice.id)?.[TURN_FEATURES.indexOf('askedAssistant')] };
    };
    const question = 'How did you recommend structuring the sprints for the layout and navigation?';
    const recommended = await ranked(question);
    expect(recommended.asked).toBe(1);
    expect(recommended.ids[0]).toBe(advice.id);
    // Without the feature's weight the assistant's answer is weighed down as any other.
    expect(own.map((t) => t.id)).toContain((await ranked(question, 0)).ids[0]);
    // Asked for new advice, or about what the user did, the feature is off.
    expect((await ranked('How would you recommend structuring the sprints for the layout?')).asked).toBe(0);
    const mine = await ranked('How did I structure the sprints for the layout and navigation?');
    expect(mine.asked).toBe(0);
    expect(own.map((t) => t.id)).toContain(mine.ids[0]);
  });

  it('ranks each event a question compares on its own, and keeps the best of each in the top ten', async () => {
    const { store, say } = await conversation();
    const ask = (session: string, text: string) => say(session, 'Christina', text);
    const scored = await ask('geometry-1', 'I did 10 triangle classification problems, scoring 8/10.');
    // The other event's words are common here, so they weigh little against the first event's.
    for (let i = 0; i < 20; i++)
      await ask(`quiz-${i}`, `Triangle classification quiz ${i}: my score by sides and angles.`);
    // One event told many times in many words of the question: as one query, it fills the top ten.
    const progress: { id: number }[] = [];
    for (let i = 0; i < 14; i++)
      progress.push(
        await ask(
          `area-${i}`,
          `I completed ${11 + i} more area calculation problems, and my accuracy improved again, from 70% to 90% in area calculations.`,
        ),
      );
    const question =
      'How many more problems did I complete between when I scored 8 out of 10 on triangle classification and when my accuracy improved from 70% to 90% in area calculations?';
    const ids = async (query: string) =>
      (await search(store, DEFAULT_SPACE, { query, kinds: ['turn'], limit: 10 })).hits.map((h) => h.id);
    // Without the comparison the same words leave the classification turn out of the ten.
    const asOne = question.replace(' between when ', ' when ').replace(' and when ', ' after ');
    expect(comparedEvents(asOne)).toBeNull();
    expect(await ids(asOne)).not.toContain(scored.id);
    const top = await ids(question);
    expect(top).toContain(scored.id);
    // The first event's two best (the classification turn and a quiz) take the last two places.
    expect(top.slice(0, 8).every((id) => progress.some((t) => t.id === id))).toBe(true);
    expect(top.slice(8)).toContain(scored.id);
  });

  it('reads the events a question compares, and no others', () => {
    expect(
      comparedEvents('How many days passed between when I booked the hotel and when I checked in two days later?'),
    ).toEqual(['I booked the hotel', 'I checked in two days later']);
    // "and the" splits before a plain "and", which may sit inside the first event.
    expect(
      comparedEvents(
        'How many days do I have between finishing my unit and integration tests and the deadline for the deployment scripts?',
      ),
    ).toEqual(['finishing my unit and integration tests', 'deadline for the deployment scripts']);
    expect(
      comparedEvents('Which improvement happened first: my quiz score rising to 82%, or my test score rising to 92%?'),
    ).toEqual(['my quiz score rising to 82%', 'my test score rising to 92%']);
    expect(comparedEvents('Did Jon open his studio before or after he lost his banking job?')).toEqual([
      'Jon open his studio',
      'he lost his banking job',
    ]);
    expect(comparedEvents('How long after starting the course did I pass the final exam?')).toEqual([
      'starting the course',
      'I pass the final exam',
    ]);
    expect(comparedEvents('What did Gina order at the restaurant?')).toBeNull();
    expect(comparedEvents('')).toBeNull();
    // A page of text is no question that compares, and is not read by the patterns at all.
    expect(comparedEvents(`Which came first: ${'what happened first, '.repeat(2000)} or the exam?`)).toBeNull();
    // An event of one word is no query of its own.
    const queries = (text: string) => comparedEventQueries(text, () => undefined).map((q) => q.terms);
    expect(queries('Did Maria adopt Coco before or after Shadow?')).toEqual([]);
    expect(queries('How many days between the hotel booking and the check-in at the resort?')).toEqual([
      ['hotel', 'booking'],
      ['check', 'resort'],
    ]);
  });

  it("places the events' turns in the last of the ten places, and leaves a list that has them alone", () => {
    const order = Array.from({ length: 30 }, (_, i) => `t${i}`);
    expect(
      placeEventTurns(order, [
        ['t3', 't4'],
        ['t9', 't0'],
      ]),
    ).toBe(order);
    const placed = placeEventTurns(order, [
      ['t3', 't20'],
      ['t25', 't26'],
    ]);
    expect(placed.slice(0, 10)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't20', 't25', 't26']);
    expect(new Set(placed)).toEqual(new Set(order));
    expect(placed.slice(10, 13)).toEqual(['t7', 't8', 't9']);
  });

  it("reports every scored turn's features, in TURN_FEATURES order", async () => {
    const { store, say } = await conversation();
    const question = await say('s1', 'Melanie', 'Which climbing gym do you go to?');
    const answer = await say('s1', 'John', 'The one downtown, near the station.');
    const features = new Map<number, number[]>();
    await search(store, DEFAULT_SPACE, { query: 'climbing gym', kinds: ['turn'] }, { turnFeatures: features });
    const of = (id: number) => Object.fromEntries(TURN_FEATURES.map((f, i) => [f, features.get(id)![i]]));
    // Fitting reads every feature, the passage ones too, which these weights give nothing.
    expect(of(question.id)).toMatchObject({ bm25: 1, coverage: 1, question: 1, next: 0, passage: 1 });
    // The answer shares no word with the query: it is scored through its neighbour.
    expect(of(answer.id)).toMatchObject({ bm25: 0, coverage: 0, prev: 1, windowCoverage: 1, question: 0 });
    // A search that does not fit skips them, and ranks the same.
    const ranked = async (turnFeatures?: Map<number, number[]>) =>
      (await search(store, DEFAULT_SPACE, { query: 'climbing gym', kinds: ['turn'] }, { turnFeatures })).hits.map(
        (h) => [h.id, h.score],
      );
    expect(await ranked()).toEqual(await ranked(new Map()));
  });

  it('matches words by their stems, as the index does, and counts adjacent query words as a pair', async () => {
    const { store, say } = await conversation();
    // Porter stems "happiness" and "happy" alike ("happi"), and "babies" and "baby" ("babi").
    const turn = await say('s1', 'Melanie', 'The daycare says my happy baby naps well.');
    await say('s1', 'John', 'Glad to hear that.');
    const features = new Map<number, number[]>();
    await search(
      store,
      DEFAULT_SPACE,
      { query: 'happiness babies daycare', kinds: ['turn'] },
      { turnFeatures: features },
    );
    const of = Object.fromEntries(TURN_FEATURES.map((f, i) => [f, features.get(turn.id)![i]]));
    expect(of.coverage).toBeCloseTo(1, 5);
    // Of the query's pairs ("happiness babies", "babies daycare"), the turn has the first in order.
    expect(of.bigram).toBeCloseTo(1 / 2, 5);
  });
});
