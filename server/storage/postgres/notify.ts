// Change events across nodes (several servers on one database): a write's events go to the other nodes sharing the
// database through NOTIFY, sent inside the write's transaction, so Postgres delivers them when it
// commits and never for a rollback; each node LISTENs on one channel and hands what it hears to
// its listeners (and so to its GraphQL subscribers, filtered per user as its own events are).
//
// A notification's payload must stay under 8000 bytes, and a deleted memory's event carries the
// whole row (`snapshot`), which the other node can no longer read. So a transaction's events go
// whole when they fit and otherwise in numbered parts, reassembled by the listener: Postgres
// writes a transaction's notifications to its queue together, in the order sent, at commit. That
// keeps every event intact with no table to write, read and clean up (a table holding a deleted
// memory's snapshot would also outlive a forget that promised to erase it).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ChangeEvent } from '../../core/kernel/store.ts';
import { logger } from '../../logger.ts';

export const CHANGES_CHANNEL = 'sm_changes';

/** Bytes of one payload: under Postgres's 8000 with room to spare. */
const MAX_PAYLOAD = 7_900;
/** Bytes of events per part: base64 grows them by a third, the envelope adds ~100. */
const PART_BYTES = 5_600;

/** A whole transaction's events, or one part of them (`p`: the message, `i` of `n`, `d`: base64). */
type Payload = { o: string; e: readonly ChangeEvent[] } | { o: string; p: number; i: number; n: number; d: string };

/** What a node announces with: its id (its own notifications come back to it) and a message count. */
export function announcer(node = randomUUID()) {
  let messages = 0;
  return {
    node,
    /** The payloads to send for `events`, in order. */
    payloads(events: readonly ChangeEvent[]): string[] {
      const whole = JSON.stringify({ o: node, e: events } satisfies Payload);
      if (Buffer.byteLength(whole) <= MAX_PAYLOAD) return [whole];
      const body = Buffer.from(JSON.stringify(events));
      const count = Math.ceil(body.length / PART_BYTES);
      const message = ++messages;
      return Array.from({ length: count }, (_, i) =>
        JSON.stringify({
          o: node,
          p: message,
          i,
          n: count,
          d: body.subarray(i * PART_BYTES, (i + 1) * PART_BYTES).toString('base64'),
        } satisfies Payload),
      );
    },
  };
}

/** Turns payloads heard into events: other nodes' only, parts joined once all have come. */
export function receiver(node: string) {
  const partial = new Map<string, { parts: Buffer[]; got: number }>();
  return {
    take(text: string): ChangeEvent[] {
      let payload: Payload;
      try {
        payload = JSON.parse(text) as Payload;
      } catch {
        return [];
      }
      if (payload.o === node) return [];
      if ('e' in payload) return [...payload.e];
      const key = `${payload.o}:${payload.p}`;
      let message = partial.get(key);
      if (!message) partial.set(key, (message = { parts: new Array<Buffer>(payload.n), got: 0 }));
      if (!message.parts[payload.i]) message.got++;
      message.parts[payload.i] = Buffer.from(payload.d, 'base64');
      if (message.got < payload.n) return [];
      partial.delete(key);
      return JSON.parse(Buffer.concat(message.parts).toString()) as ChangeEvent[];
    },
    /** Parts of a message cut by a lost connection never complete: forget them. */
    reset: () => partial.clear(),
  };
}

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/** A connection that died without a word (a network gone quiet) is found by the next ping. */
const PING_MS = 30_000;

/** One LISTEN connection's state: the client now, whether it was lost, and the wait before the next try. */
type Listening = {
  config: pg.ClientConfig;
  channel: string;
  hear: (payload: string) => void;
  reconnected: () => void;
  up?: (listening: boolean) => void;
  stopped: boolean;
  current: pg.Client | null;
  timer: NodeJS.Timeout | undefined;
  delay: number;
  lost: boolean;
  isUp: boolean;
  ready: () => void;
};

const setUp = (state: Listening, value: boolean) => {
  if (state.isUp === value) return;
  state.isUp = value;
  state.up?.(value);
};

function retry(state: Listening) {
  if (state.stopped || state.timer) return;
  state.timer = setTimeout(() => {
    state.timer = undefined;
    void connect(state);
  }, state.delay);
  state.timer.unref();
  state.delay = Math.min(RETRY_MAX_MS, state.delay * 2);
}

/** The connection `client` is lost (an error, its end, a failed ping): said once, then connecting again. */
function drop(state: Listening, client: pg.Client, error?: Error) {
  if (state.current !== client) return;
  state.current = null;
  setUp(state, false);
  if (!state.lost && !state.stopped)
    logger.warn(
      { err: error?.message },
      "the connection listening for other nodes' changes was lost: connecting again",
    );
  state.lost = true;
  client.end().catch(() => undefined);
  retry(state);
}

async function connect(state: Listening) {
  if (state.stopped) return;
  const client = new pg.Client({ ...state.config, keepAlive: true });
  client.on('notification', (message) => {
    if (message.channel === state.channel && message.payload) state.hear(message.payload);
  });
  client.on('error', (error) => drop(state, client, error));
  client.on('end', () => drop(state, client));
  state.current = client;
  try {
    await client.connect();
    await client.query(`listen ${state.channel}`);
  } catch (error) {
    drop(state, client, error as Error);
    return;
  }
  if (state.stopped) return void (await client.end().catch(() => undefined));
  if (state.current !== client) return;
  state.delay = RETRY_FIRST_MS;
  if (state.lost) {
    state.lost = false;
    logger.info("listening for other nodes' changes again");
    state.reconnected();
  }
  setUp(state, true);
  state.ready();
}

/**
 * LISTENs on `channel` on a connection of its own (a pooled one would be handed to queries),
 * and keeps listening: when the connection is lost (the server restarted, the network failed) it
 * connects again, backing off up to 5 s, and listens again. Notifications sent while it was away
 * are not heard (live subscribers miss them, as a client that was disconnected does).
 */
export function listenOnServer(
  config: pg.ClientConfig,
  channel: string,
  hear: (payload: string) => void,
  reconnected: () => void,
  up?: (listening: boolean) => void,
) {
  let ready!: () => void;
  const listening = new Promise<void>((resolve) => (ready = resolve));
  const state: Listening = {
    ...{ config, channel, hear, reconnected, up, ready },
    ...{ stopped: false, current: null, timer: undefined, delay: RETRY_FIRST_MS, lost: false, isUp: false },
  };
  const ping = setInterval(() => {
    const client = state.current;
    client?.query('select 1').catch((error: Error) => drop(state, client, error));
  }, PING_MS);
  ping.unref();
  void connect(state);

  return {
    ready: listening,
    async stop() {
      state.stopped = true;
      clearTimeout(state.timer);
      clearInterval(ping);
      ready();
      const client = state.current;
      state.current = null;
      setUp(state, false);
      await client?.end().catch(() => undefined);
    },
  };
}
