// A small OpenAI-compatible server on loopback for tests: the real `openai` client talks to it
// over HTTP. Each request takes the next scripted behaviour (or the default): answer, delay,
// fail with a status, or send malformed bodies.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { reply: string | ((body: any) => string); usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; message?: string }
  | { delayMs: number; then?: Behaviour }
  | { raw: string }
  /** Chooses the behaviour from the request (e.g. hold only one kind of prompt). */
  | { decide: (body: any) => Behaviour };

export type RecordedRequest = { path: string; headers: IncomingMessage['headers']; body: any };

/**
 * /embeddings answers with a deterministic hashed bag of words (texts sharing words are close).
 * `native` is the model's own size; `honourDimensions: false` plays a provider that ignores the
 * `dimensions` parameter and always returns `native` values; `'reject'` one that answers 400 to it.
 * `synonyms`: groups of words embedded alike (a model that knows "pottery" is "ceramics").
 */
export type EmbeddingOptions = {
  native?: number;
  honourDimensions?: boolean | 'reject';
  failures?: number;
  synonyms?: string[][];
};

export function hashedEmbedding(text: string, size: number, synonyms: string[][] = []): number[] {
  const vector = new Array<number>(size).fill(0);
  for (const said of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = synonyms.find((group) => group.includes(said))?.[0] ?? said;
    let h = 2166136261;
    for (const c of word) h = Math.imul(h ^ c.codePointAt(0)!, 16777619) >>> 0;
    vector[h % size]! += h & 0x80000000 ? -1 : 1;
  }
  // Not unit length on purpose: the client must normalise.
  return vector.map((v) => v * 3);
}

export async function startOpenAiServer(fallback: Behaviour = { reply: '[]' }, embedding: EmbeddingOptions = {}) {
  let embeddingFailures = embedding.failures ?? 0;
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : null;
    requests.push({ path: req.url ?? '', headers: req.headers, body });
    if (req.url?.endsWith('/embeddings')) {
      if (embeddingFailures > 0) {
        embeddingFailures--;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted embedding failure', type: 'server_error' } }));
        return;
      }
      if (embedding.honourDimensions === 'reject' && body.dimensions !== undefined) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: 'This model does not support specifying dimensions.', type: 'invalid_request_error' },
          }),
        );
        return;
      }
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const native = embedding.native ?? 64;
      const size =
        embedding.honourDimensions === false || !body.dimensions ? native : Math.min(native, body.dimensions);
      const data = inputs.map((input, index) => {
        const values = hashedEmbedding(String(input), size, embedding.synonyms);
        const encoded =
          body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(values).buffer).toString('base64') : values;
        return { object: 'embedding', index, embedding: encoded };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data,
          model: body.model,
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
      return;
    }
    let behaviour = queue.shift() ?? fallback;
    while ('decide' in behaviour || 'delayMs' in behaviour) {
      if ('decide' in behaviour) {
        behaviour = behaviour.decide(body);
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, (behaviour as { delayMs: number }).delayMs));
      // The client gave up (timeout): nobody is left to answer. (req is always consumed by now.)
      if (res.destroyed) return;
      behaviour = behaviour.then ?? fallback;
    }
    if ('status' in behaviour) {
      res.writeHead(behaviour.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: behaviour.message ?? 'scripted failure', type: 'server_error' } }));
      return;
    }
    if ('raw' in behaviour) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(behaviour.raw);
      return;
    }
    const content = typeof behaviour.reply === 'function' ? behaviour.reply(body) : behaviour.reply;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'test-model',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        usage: behaviour.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The next `n` embedding requests fail with 503. */
    failEmbeddings: (n: number) => void (embeddingFailures = n),
    /** Queues behaviours for the next requests, in order. */
    script: (...behaviours: Behaviour[]) => queue.push(...behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
