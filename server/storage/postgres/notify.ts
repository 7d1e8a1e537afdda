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
  let stopped = false;
  let current: pg.Client | null = null;
  let timer: NodeJS.Timeout | undefined;
  let delay = RETRY_FIRST_MS;
  let lost = false;
  let isUp = false;
  const setUp = (value: boolean) => {
    if (isUp === value) return;
    isUp = value;
    up?.(value);
  };
  let ready!: () => void;
  const listening = new Promise<void>((resolve) => (ready = resolve));

  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(RETRY_MAX_MS, delay * 2);
  };
  const drop = (client: pg.Client, error?: Error) => {
    if (current !== client) return;
    current = null;
    setUp(false);
    if (!lost && !stopped)
      logger.warn(
        { err: error?.message },
        "the connection listening for other nodes' changes was lost: connecting again",
      );
    lost = true;
    client.end().catch(() => undefined);
    retry();
  };

  async function connect() {
    if (stopped) return;
    const client = new pg.Client({ ...config, keepAlive: true });
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) hear(message.payload);
    });
    client.on('error', (error) => drop(client, error));
    client.on('end', () => drop(client));
    current = client;
    try {
      await client.connect();
      await client.query(`listen ${channel}`);
    } catch (error) {
      drop(client, error as Error);
      return;
    }
    if (stopped) return void (await client.end().catch(() => undefined));
    if (current !== client) return;
    delay = RETRY_FIRST_MS;
    if (lost) {
      lost = false;
      logger.info("listening for other nodes' changes again");
      reconnected();
    }
    setUp(true);
    ready();
  }

  const ping = setInterval(() => {
    const client = current;
    client?.query('select 1').catch((error: Error) => drop(client, error));
  }, PING_MS);
  ping.unref();
  void connect();

  return {
    ready: listening,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(ping);
      ready();
      const client = current;
      current = null;
      setUp(false);
      await client?.end().catch(() => undefined);
    },
  };
}
