// What is not a memory (docs/extraction.md): a memory holds a claim about the speaker or their
// world that stays true beyond the moment. Questions, requests to the assistant, greetings,
// thanks, praise and advice for the listener, fragments, and text the service wrote itself are
// not; the turn stays searchable either way. Pure functions of the text: cheap on the hot path.
import { isTimelineLine } from '../digests/timeline-text.ts';
import { isStopword } from '../text/query.ts';

/** A clause that asks something, or asks the assistant to do something, says nothing lasting. */
const REQUEST =
  /^(?:(?:so|and|but|also|now|then|ok(?:ay)?|hmm+|um+|well|hey|hi|please)[,!]?\s+)*(?:can|could|would|will|do|does|did|is|are|was|were|should|shall|may|might|what|how|why|who|where|when|which|whether|any(?:one|thing)?)\b[^.!]*$|^(?:(?:so|and|but|also|now|then|ok(?:ay)?|hmm+|well)[,!]?\s+)*(?:please|help me|show me|tell me|give me|walk me|explain|let me know|make sure|remind me|suggest|provide|write|create|generate|fix|implement|add|update|refactor|debug|check)\b|\b(?:can|could|would|will) you\b|(?<!\bto )\b(?:help|assist) me\b|\b(?:looking for|need|want|searching for)\b[^.!?]{0,80}?\bto (?:help|assist) me\b|\bi(?:'d| would) (?:like|love|appreciate) (?:you|it if you|some help|help|your)\b|\bi (?:need|want|would like) (?:you|your|help|some help|guidance|advice|assistance|an? (?:example|explanation|walkthrough|overview))\b|\bi(?:'m| am) (?:not sure|unsure|wondering|curious|confused|stuck|having (?:some |a few |an? )?(?:trouble|issues?|problems?|difficulty|difficulties))\b|\bi (?:was|am) wondering\b|\b(?:any|some) (?:ideas|suggestions|tips|advice|thoughts)\b/i;

/** Said to the listener: thanks, praise, advice, wishes ("you're doing great", "let's keep going"). */
const TO_LISTENER =
  /\b(?:you|your|you're|you've|you'll|yours|yourself|ya)\b|^let'?s\b|\blet (?:me|us)\b|\bthanks?\b|\bthank you\b|\bcongrat/i;

/** A reaction or a reflection of the moment, not news about the speaker. */
const MOMENT =
  /^(?:it|that|this|those|these|there|here|seeing|hearing|knowing|being|having|doing|nothing|everything|life|things|moments?|such|what|how|so|yeah|yes|no|wow|oh|aw+|haha|lol)\b(?!\s+(?:i|my|we|our)\s+(?:have|had|went|got|made|started|bought|adopted|moved|finished|joined|took|won|lost|built|visited)\b)|\b(?:pic|pics|photo|photos|picture|pictures|snapshot|screenshot|here's|here is|look at|check out|take a look)\b|^(?:i|we) (?:all|both)\b|\b(?:we|they) (?:can|could|should|must|need to|have to|gotta)\b|^(?:i|we)(?:'re| are| am|'m)? (?:so |really |totally |very |super |just )*(?:glad|happy|excited|sorry|thrilled|stoked|pumped|proud|blessed|lucky|grateful|thankful)\b(?! to (?:have|be|start|join|move|get|own))/i;

/** Words of the moment that open a clause: a reaction or reassurance ("Glad I can help", "Sounds like…", "Don't worry"). */
const REACTION_OPENING =
  /^(?:so\s+|really\s+)?(?:glad|happy|excited|thrilled|stoked|sorry|sounds|looks like|seems like|don't worry|no worries)\b/i;

/** A resolution said to cheer on, not a plan: "I'm gonna keep going", "I'll stay positive", "I'll never give up". */
const RESOLUTION =
  /^(?:i|we)(?:'ll|\s+will|(?:'m|'re|\s+am|\s+are)\s+(?:gonna|going to))\s+(?:definitely\s+|totally\s+|just\s+|always\s+|still\s+)*(?:keep|stay (?:positive|optimistic|motivated|focused|strong|upbeat|hopeful|determined)|never (?:give up|quit|stop)|go for (?:it|my dreams?)|push(?:ing)? (?:on|forward|through)|chase|believe)\b/i;

/** What the speaker is doing for this conversation only: trying, wanting, hoping, needing to, getting an error. */
const MOMENT_INTENT =
  /^(?:i|we)(?:'m|'re|'ve|'d|\s+am|\s+are|\s+have|\s+would)?\s+(?:just |really |currently |still |also |now |been |actually )*(?:(?:like|love) to (?:see|know|get|have|learn|understand|add|create|implement|make sure|ensure|ask|use|try|build|improve|integrate|explore|discuss)|heard|tried(?! my hand\b)|tested|added|managed|noticed|need|needed|hope|hoping|wish|wonder|wondering|think|feel|felt|guess|mean|meant|believe|know|understand|see|bet|agree|remember|forgot|want(?:ed)? to (?:make sure|ensure|know|understand|see|check|confirm|figure|learn|avoid|improve|optimi[sz]e|handle|add|implement|get|try|ask|share|tell|say|thank|let)|(?:getting|seeing|encountering|hitting|receiving) (?:(?:an?|the|this|that|these|some|another|a similar|the same) )?(?:[\w.-]+ ){0,3}\w*(?:errors?|exceptions?|warnings?)|getting (?:an? |the )?["“']|(?:running|run) into (?:(?:some|a few|an?|the same|similar|several) )?(?:issues?|problems?|errors?|trouble|difficulties)|(?:seeing|getting|noticing) (?:some |an? )?(?:inconsistent|weird|strange|unexpected|odd)\b)\b/i;

/** The speaker is the clause's subject: it opens with "I"/"my"/"we", after at most a short lead ("Last Monday I…"). */
const FIRST_PERSON_SUBJECT = /^(?:[\w'-]+,?\s+){0,3}(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our|me and)\b/i;

/** "I'm trying to…": a task (task.current in heuristics.ts reads the lasting ones), never a statement kept whole. */
const TRYING = /^(?:i|we)(?:'m|'re|'ve been|\s+am|\s+are|\s+have been)\s+(?:\w+\s+)?(?:trying|attempting) to\b/i;

/** Said to the listener, or about trying something now: never a statement kept whole, whatever the model says. */
export const toListenerOrTrying = (clause: string) => TO_LISTENER.test(clause) || TRYING.test(clause);

/** A clause with at least this many words of four letters or more says something of its own. */
const MIN_CONTENT_WORDS = 4;

/** Points at something pasted with it ("this error", "like this:", "the following"): not a fact on its own. */
const DEICTIC =
  /:\s*$|\b(?:this|these|that|the following|my current|the above) (?:error|errors|code|snippet|function|schema|setup|output|message|config|configuration|implementation|file|query|script|class|component|method|example|approach|issue|problem|warning|stack trace|traceback)\b|\blike (?:this|so)\b|\bas follows\b|\b(?:below|above)\s*$/i;

/** An example or a wish under a condition, not something that happened: "For example, I want…", "I would get two turtles if I could". */
const HYPOTHETICAL =
  /^(?:for example|for instance|e\.g\.|suppose|supposing|let's say|hypothetically|in theory|what if|wish (?:i|we))\b|\bif (?:i|we)(?: could| were| was| had| would|'d| ever)\b|\b(?:i|we)(?: would|'d) (?:\w+ ){0,6}if\b/i;

/** The question a chat tacks on after a dash ("I finished another pottery project - want to see a pic?"), when it asks for no help. */
const TRAILING_QUESTION = /\s[-–—]+\s(?=[^-–—]*\?\s*$)/;
const ASKS_FOR_HELP = /\b(?:advice|tips?|ideas?|suggestions?|thoughts|help|recommend\w*)\b/i;

/**
 * A first-person statement with a passing question after a dash, without the question: the
 * statement is news, the question only keeps the chat going. Any other clause as it is.
 */
export function statementBeforeQuestion(clause: string): string {
  const dash = TRAILING_QUESTION.exec(clause);
  if (!dash) return clause;
  const head = clause.slice(0, dash.index);
  const tail = clause.slice(dash.index);
  return FIRST_PERSON_SUBJECT.test(head) && !head.includes('?') && !ASKS_FOR_HELP.test(tail) ? head : clause;
}

export const isRequestOrQuestion = (clause: string) =>
  /\?\s*$/.test(clause) || REQUEST.test(clause) || DEICTIC.test(clause);

/** Not a lasting claim whatever rule reads it: a question, a request, a pointer to pasted text, an intent of the moment, an example. */
export const notAClaim = (clause: string) =>
  isRequestOrQuestion(clause) ||
  MOMENT_INTENT.test(clause) ||
  REACTION_OPENING.test(clause) ||
  RESOLUTION.test(clause) ||
  HYPOTHETICAL.test(clause);

/**
 * Whether a clause kept whole as a statement (the fallback rule, no pattern of its own) is a
 * lasting claim: first person, about the speaker, not a reaction, a wish or words to the listener.
 */
export function lastingStatement(clause: string, contentWords: number): boolean {
  if (contentWords < MIN_CONTENT_WORDS || isRequestOrQuestion(clause)) return false;
  if (!FIRST_PERSON_SUBJECT.test(clause) || TRYING.test(clause)) return false;
  return !TO_LISTENER.test(clause) && !MOMENT.test(clause) && !MOMENT_INTENT.test(clause);
}

/** Lines the service writes into a context block: its headings, fact lines and dated excerpts. */
const PRODUCED_LINE =
  /^\s*(?:#{1,4}\s+(?:Facts|Conversation excerpts|Weekly insight|Standing instructions|About the user|Instructions|Preferences|Profile|Timeline|Session digests?|Digests?|Memories|Relevant memories|Context)\b.*|[-*]\s+.+\((?:pinned, )?(?:stated|told|said) \d{4}-\d{2}-\d{2}[^)]*\)\s*|-\s+\(\d+ more [^)]* not shown\)\s*|\[\d{4}-\d{2}-\d{2}(?:[ T][\d:]+)?\]\s+[^:\n]{1,60}:.*|Weekly reflection \d{4}-\d{2}-\d{2}\b.*|-\s+[^:\n]{1,40} \(\d+\): .*|-\s+".*" replaced ".*")$/i;

/** Code and what looks like it: fenced blocks, and lines of symbols, keywords and indentation. */
const FENCE = /^\s*(?:```|~~~)/;
const CODE_LINE =
  /^\s{2,}\S|[{};]\s*$|^\s*(?:[}\])]|\/\/|\/\*|\*\s|#include|import\s|from\s+\S+\s+import|export\s|const\s|let\s|var\s|function\s|def\s|class\s|return\b|if\s*\(|for\s*\(|while\s*\(|<\/?[a-z][\w-]*[\s>]|\$\s|>>>|\w+\s*=\s*[\w'"[{(])|=>|\)\s*\{/;

/**
 * The part of a turn that is worth reading for facts: without code (fenced or not), quoted
 * lines, markdown tables, and the lines a context block is made of (a turn or a system prompt
 * that pastes the service's own output back must not teach it that output again). Linear in
 * the text's length.
 */
export function proseOf(text: string): string {
  if (!/[\n`#[\]{};=|>]/.test(text)) return text;
  const kept: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || PRODUCED_LINE.test(line) || isTimelineLine(line) || /^\s*(?:>|\|)/.test(line) || CODE_LINE.test(line))
      continue;
    kept.push(line.replace(/`[^`\n]*`/g, (code) => code.slice(1, -1)));
  }
  return kept.join('\n');
}

/** A claim whose object is a word pointing back ("wants to make that happen", "couldn't have done it without them"): nothing on its own. */
export const endsPointingBack = (sentence: string) =>
  /\b(?:it|that|this|them|those|these|there|one)(?:\s+(?:too|again|happen|out|up|on|off|all|through))?\s*$/i.test(
    sentence,
  ) && wordsBesidePointer(sentence) < MIN_WORDS_BESIDE_POINTER;

/**
 * Catching up, with nothing said yet: "has been keeping busy since they last talked", "has had
 * quite the adventure", "got some great news to share". What the news or the business is comes next, and that is the fact.
 */
export const catchingUp = (sentence: string) =>
  CATCHING_UP.test(sentence.replace(SINCE_LAST_TALKED, '').replace(/[\s,.!-]+$/, ''));
const SINCE_LAST_TALKED =
  /,?\s*since (?:(?:they|we) (?:last )?(?:talked|spoke|chatted|caught up)(?: last)?|(?:their|our) last (?:chat|talk|conversation))\b/gi;
const CATCHING_UP =
  /^\S+(?: said (?:they|\S+))? (?:has been|have been|is|are|was|were|has been keeping|have been keeping|kept|has had|have had|had|got|has got|have got) (?:(?:real|really|super|so|pretty|very|quite|crazy|insanely) )?(?:busy|swamped|good|great|fine|ok|okay|alright|well|a lot (?:of things )?(?:going on|happening)(?: to \S+)?|quite (?:the|a) (?:adventure|ride|week|time)|an? (?:wild|crazy|hectic|busy|rough|long|eventful) (?:few days|day|week|month|time)|some (?:great |good |big |exciting |amazing )?news(?: to share)?)$/i;

/**
 * A promise or offer of the moment to the listener: "will do my best to find some resources", "will
 * definitely check it out", "I'm here to lend an ear", "I can only imagine". Not "I'll always remember…".
 */
export const promiseOfTheMoment = (sentence: string) => PROMISE.test(sentence);
const PROMISE =
  /^\S+ (?:(?:will|would) (?:(?:definitely|surely|certainly|totally|just|also|try to|for sure) )*(?:do (?:their|my|our) best|make sure to|ask around|reach out(?= if| when|$)|check (?:it|them|that|this|those|these) out|think about it|keep (?:it|that|this) in mind|let (?:you|them) know|look into it|give it a (?:try|shot|go))|(?:is|are) (?:always )?here (?:for|to)|can (?:only )?imagine)\b/i;

/** A claim whose object is a vague noun ("found the bug", "made some progress"): nothing on its own. */
export const endsVague = (sentence: string) =>
  /\b(?:the|this|that|these|those|some|various|several|a few)\s+(?:issues?|problems?|bugs?|errors?|mistakes?|progress|changes?|feedback|things?|stuff|features?|steps?|fix(?:es)?|solutions?|suggestions?)\s*$/i.test(
    sentence,
  ) && wordsBesidePointer(sentence) <= MIN_WORDS_BESIDE_POINTER;

/** Words past the subject that say something ("went to a pottery class yesterday and loved it" keeps its claim). */
const MIN_WORDS_BESIDE_POINTER = 3;
const LIGHT_WORDS = new Set(
  'want wants wanted help helps helped make makes made do does did done get gets got keep keeps kept try tries tried going gonna happen'.split(
    ' ',
  ),
);
// Not fact-sentences.ts's contentWords (any word over three letters): this one leaves out stop
// words, light verbs and the subject, to tell a claim from a pointer.
const wordsBesidePointer = (sentence: string) =>
  (sentence.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter(
    (w) => w.length > 2 && !isStopword(w) && !LIGHT_WORDS.has(w),
  ).length - 1;

/** A clause in no script the rules read (Hebrew, Chinese, only emoji or symbols): no English fact in it. */
export const hasLatinWords = (clause: string) => /[A-Za-z]/.test(clause);
