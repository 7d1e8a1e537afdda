// compromise in a thread of its own. The accurate NER pass costs 1-2 ms of CPU per turn: on the
// server's thread that time is taken from the requests (at 500 turns/s, most of a core), in a
// thread it runs on another core. The thread starts on first use and ends after IDLE_MS without
// work, so an idle server holds no tagger (its lexicon is about 50 MB of memory). Its heap is
// capped: a runaway parse ends the thread (the batch fails and is retried), never the server.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  entitiesFromMatches,
  joinTexts,
  parseGroups,
  splitMatches,
  type CompromiseMatches,
} from '../core/entities/ner/compromise-provider.ts';
import { NerUnavailable, type NerProvider } from '../core/entities/types.ts';
import { afterWorkerStart } from '../young-generation.ts';

/** How long the thread stays after its last parse. */
const IDLE_MS = 30_000;

/**
 * The thread's code: what compromiseMatches (core/entities/ner/compromise-provider.ts) does, in CommonJS
 * and given compromise's path, so that it runs the same from the sources and from the CLI bundle
 * (which has no module file a Worker could be pointed at).
 */
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const nlp = require(workerData.compromise);
const keep = (matches) => matches.map((m) => ({ text: m.text, offset: m.offset && { start: m.offset.start, length: m.offset.length } }));
parentPort.on('message', ({ id, text }) => {
  try {
    const doc = nlp(text);
    parentPort.postMessage({ id, matches: [keep(doc.people().json({ offset: true })), keep(doc.places().json({ offset: true })), keep(doc.organizations().json({ offset: true }))] });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Waiter = { resolve: (matches: CompromiseMatches) => void; reject: (error: Error) => void };
type Thread = { worker: Worker; waiting: Map<number, Waiter>; idle?: NodeJS.Timeout };

let thread: Thread | null = null;
let nextId = 0;

function start(): Thread {
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { compromise: createRequire(import.meta.url).resolve('compromise') },
    // A small young generation: parses make short-lived garbage, and the default (16 MB semi-spaces)
    // added about 15 MB to the server's peak; 4 MB costs about 5 % more CPU per turn, in this thread.
    resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 4 },
  });
  afterWorkerStart(worker);
  const state: Thread = { worker, waiting: new Map() };
  const end = (error: Error) => {
    if (thread === state) thread = null;
    clearTimeout(state.idle);
    for (const waiter of state.waiting.values()) waiter.reject(error);
    state.waiting.clear();
  };
  worker.on('message', ({ id, matches, error }: { id: number; matches?: CompromiseMatches; error?: string }) => {
    const waiter = state.waiting.get(id);
    state.waiting.delete(id);
    if (error !== undefined) waiter?.reject(new Error(`compromise: ${error}`));
    else waiter?.resolve(matches!);
    if (state.waiting.size > 0) return;
    // Idle: the thread no longer keeps the process alive (a CLI command ends), and ends itself later.
    worker.unref();
    state.idle = setTimeout(() => void worker.terminate(), IDLE_MS).unref();
  });
  // Its parses are lost with it: the batch fails (NerUnavailable) and is retried, in a new thread.
  worker.on('error', (error) => end(new NerUnavailable(`the NER thread failed: ${error.message}`)));
  worker.on('exit', (code) => end(new NerUnavailable(`the NER thread exited (${code})`)));
  return state;
}

/** compromise's matches in `text`, parsed in the thread. */
function parse(text: string): Promise<CompromiseMatches> {
  const state = (thread ??= start());
  clearTimeout(state.idle);
  state.worker.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    state.waiting.set(id, { resolve, reject });
    state.worker.postMessage({ id, text });
  });
}

/** Ends the thread now, if there is one: its parses under way fail (NerUnavailable), the next parse starts a new one. */
export async function stopNerThread(): Promise<void> {
  const state = thread;
  if (!state) return;
  thread = null;
  await state.worker.terminate();
}

/** The compromise provider, parsing in the thread (many texts in one parse, see joinTexts and parseGroups). */
export const compromiseInThread: NerProvider = {
  name: 'compromise',
  extract: async (text) => entitiesFromMatches(text, await parse(text)),
  extractMany: async (texts) => {
    const found = await Promise.all(
      parseGroups(texts).map(async (group) => {
        const split = splitMatches(group, await parse(joinTexts(group)));
        return group.map((text, i) => entitiesFromMatches(text, split[i]!));
      }),
    );
    return found.flat();
  },
};
