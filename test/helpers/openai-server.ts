// A small OpenAI-compatible server on loopback for tests: the real `openai` client talks to it
// over HTTP. Each request takes the next scripted behaviour (or the default): answer, delay,
// fail with a status, or send malformed bodies.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { reply: string | ((body: any) => string); usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; message?: string }
  | { delayMs: number; then?: Behaviour }
  | { raw: string };

export type RecordedRequest = { path: string; headers: IncomingMessage['headers']; body: any };

export async function startOpenAiServer(fallback: Behaviour = { reply: '[]' }) {
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : null;
    requests.push({ path: req.url ?? '', headers: req.headers, body });
    let behaviour = queue.shift() ?? fallback;
    while ('delayMs' in behaviour) {
      await new Promise((resolve) => setTimeout(resolve, (behaviour as { delayMs: number }).delayMs));
      if (res.destroyed || req.destroyed) return;
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
    /** Queues behaviours for the next requests, in order. */
    script: (...behaviours: Behaviour[]) => queue.push(...behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
