// The AI SDK package (ai-sdk/) against a real `sm serve`: the AI SDK's own mock language model,
// wrapped with the memory middleware, run through generateText and streamText; the memory tools
// called by the model; and the service refused, failing (503) or silent, where the model's answer
// still comes back with a warning.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, simulateReadableStream, stepCountIs, streamText, type ModelMessage } from 'ai';
import * as aiTest from 'ai/test';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryTools, withMemory, type Logger } from '../../ai-sdk/src/index.ts';
import { createClient, type SymbiosisClient } from '../../client/src/index.ts';
import { smServe } from '../helpers/sm-serve.ts';

type Prompt = MockLanguageModelV3['doGenerateCalls'][number]['prompt'];
/**
 * The AI SDK's own mock model of the major installed: ai 6 has MockLanguageModelV3, ai 7 adds
 * MockLanguageModelV4 (its own model spec), so the same tests run against either. The types are ai 6's.
 */
const MockLanguageModel = ((aiTest as Record<string, unknown>).MockLanguageModelV4 ??
  aiTest.MockLanguageModelV3) as typeof MockLanguageModelV3;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const answer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage,
  warnings: [],
});
const toolCall = (toolName: string, input: Record<string, unknown>) => ({
  content: [{ type: 'tool-call' as const, toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});
/** A model answering from a script, one response per call; `prompts` holds what each call was sent. */
function scripted(...responses: ReturnType<typeof answer | typeof toolCall>[]) {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModel({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      const next = responses.shift();
      if (!next) throw new Error('the script has no more responses');
      return next;
    },
  });
  return { model, prompts };
}
/** A model streaming `chunks` as its answer. */
function streaming(chunks: string[]) {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModel({
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      return {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start' as const, id: 't1' },
            ...chunks.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
            { type: 'text-end' as const, id: 't1' },
            { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: 'stop' }, usage },
          ],
        }),
      };
    },
  });
  return { model, prompts };
}
/** A logger keeping what it was told. */
function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (message) => void lines.push(message) };
}
/**
 * The time limit of the calls that must reach memory: a server's first context call can take
 * seconds on a busy machine (the default limit is 2 s); the tests of the limit set their own.
 */
const WARM = 30_000;
const systemTexts = (prompt: Prompt) => prompt.filter((m) => m.role === 'system').map((m) => m.content);

let dir: string;
let server: Awaited<ReturnType<typeof smServe>>;
let sm: SymbiosisClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sm-ai-sdk-'));
  server = await smServe(join(dir, 'memory.db'));
  sm = createClient({ url: server.url });
}, 60_000);

afterAll(async () => {
  await sm?.dispose();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const turnsOf = async (sessionId: string, userId: string) =>
  (await sm.turns({ sessionId, userId, last: 50 })).turns.edges.map(
    (e) => `${e.node.role.toLowerCase()}: ${e.node.text}`,
  );

describe('memory middleware', () => {
  it('a two-turn conversation stores both turns, and the second call carries what the first turn said', async () => {
    const logger = recorder();
    const { model, prompts } = scripted(
      answer('Lisbon is a lovely city for a nurse.'),
      answer('Your sister Maria lives in Lisbon.'),
    );
    const memory = withMemory(model, { url: server.url, timeoutMs: WARM, userId: 'alex', sessionId: 'chat-1', logger });

    const messages: ModelMessage[] = [
      { role: 'user', content: 'My sister Maria lives in Lisbon and works as a nurse.' },
    ];
    const first = await generateText({ model: memory, messages });
    expect(first.text).toBe('Lisbon is a lovely city for a nurse.');
    // A new user: nothing to remember yet, so no block.
    expect(systemTexts(prompts[0]!)).toEqual([]);

    messages.push({ role: 'assistant', content: first.text }, { role: 'user', content: 'Where does my sister live?' });
    const second = await generateText({ model: memory, system: 'You are a helpful assistant.', messages });
    expect(second.text).toBe('Your sister Maria lives in Lisbon.');

    expect(await turnsOf('chat-1', 'alex')).toEqual([
      'user: My sister Maria lives in Lisbon and works as a nurse.',
      'assistant: Lisbon is a lovely city for a nurse.',
      'user: Where does my sister live?',
      'assistant: Your sister Maria lives in Lisbon.',
    ]);
    // The app's instructions first, then the memory block, then the conversation.
    const prompt = prompts[1]!;
    expect(prompt[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    expect(prompt[1]!.role).toBe('system');
    expect(prompt[1]!.content).toMatch(/Maria lives in Lisbon/);
    expect(prompt.slice(2).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(logger.lines).toEqual([]);

    // A new conversation of the same user starts with what the first one said.
    const next = scripted(answer('In Lisbon.'));
    await generateText({
      model: withMemory(next.model, { url: server.url, timeoutMs: WARM, userId: 'alex', sessionId: 'chat-2' }),
      prompt: 'Which city does Maria live in?',
    });
    expect(systemTexts(next.prompts[0]!).join('\n')).toMatch(/Maria lives in Lisbon/);
    // Another user's calls never see it.
    const other = scripted(answer('I do not know.'));
    await generateText({
      model: withMemory(other.model, { url: server.url, timeoutMs: WARM, userId: 'sam', sessionId: 'chat-1' }),
      prompt: 'Which city does Maria live in?',
    });
    expect(systemTexts(other.prompts[0]!).join('\n')).not.toMatch(/Lisbon/);
    expect(await turnsOf('chat-1', 'sam')).toEqual([
      'user: Which city does Maria live in?',
      'assistant: I do not know.',
    ]);
  });

  it('a streamed answer is recorded when the stream ends, with the context in front', async () => {
    const { model, prompts } = streaming(['The capital ', 'of Portugal ', 'is Lisbon.']);
    const memory = withMemory(model, { url: server.url, timeoutMs: WARM, userId: 'alex', sessionId: 'stream-1' });
    const result = streamText({ model: memory, prompt: 'What is the capital of the country where Maria lives?' });
    let streamed = '';
    for await (const delta of result.textStream) streamed += delta;
    expect(streamed).toBe('The capital of Portugal is Lisbon.');
    expect(systemTexts(prompts[0]!).join('\n')).toMatch(/Maria lives in Lisbon/);
    expect(await turnsOf('stream-1', 'alex')).toEqual([
      'user: What is the capital of the country where Maria lives?',
      'assistant: The capital of Portugal is Lisbon.',
    ]);
  });

  it('a call can name its own session, user and agent in providerOptions.symbiosis', async () => {
    const { model } = scripted(answer('Noted.'));
    const memory = withMemory(model, {
      url: server.url,
      timeoutMs: WARM,
      userId: 'alex',
      sessionId: 'default-session',
    });
    await generateText({
      model: memory,
      prompt: 'I play the cello.',
      providerOptions: { symbiosis: { userId: 'kim', agentId: 'tutor', sessionId: 'lesson-1' } },
    });
    const { turns } = await sm.turns({ sessionId: 'lesson-1', userId: 'kim', agentId: 'tutor' });
    expect(turns.edges.map((e) => [e.node.text, e.node.agentId])).toEqual([
      ['I play the cello.', 'tutor'],
      ['Noted.', 'tutor'],
    ]);
    expect(await turnsOf('default-session', 'alex')).toEqual([]);
  });

  it('a tool loop records the user message once and the final answer', async () => {
    const { model } = scripted(
      toolCall('search_memory', { query: 'Maria' }),
      answer('Maria lives in Lisbon and works as a nurse.'),
    );
    const memory = withMemory(model, { url: server.url, timeoutMs: WARM, userId: 'alex', sessionId: 'loop-1' });
    const result = await generateText({
      model: memory,
      prompt: 'What do you know about Maria?',
      tools: memoryTools({ url: server.url, timeoutMs: WARM, userId: 'alex' }),
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Maria lives in Lisbon and works as a nurse.');
    expect(await turnsOf('loop-1', 'alex')).toEqual([
      'user: What do you know about Maria?',
      'assistant: Maria lives in Lisbon and works as a nurse.',
    ]);
  });

  it('without a session it answers without memory and says so once', async () => {
    const logger = recorder();
    const { model, prompts } = scripted(answer('one'), answer('two'));
    const memory = withMemory(model, { url: server.url, timeoutMs: WARM, userId: 'alex', logger });
    expect((await generateText({ model: memory, prompt: 'Where does Maria live?' })).text).toBe('one');
    expect((await generateText({ model: memory, prompt: 'Where does Maria live?' })).text).toBe('two');
    expect(systemTexts(prompts[0]!)).toEqual([]);
    expect(logger.lines).toEqual([
      'symbiosis-memory: no sessionId (give one in the options or in providerOptions.symbiosis): calls go without memory',
    ]);
  });
});

/** The tool results and tool errors the model was sent, as text, from the prompt of a later step. */
const toolOutputs = (prompt: Prompt) =>
  prompt.flatMap((m) =>
    m.role === 'tool'
      ? m.content.flatMap((p) =>
          p.type === 'tool-result' ? [`${p.output.type}: ${'value' in p.output ? String(p.output.value) : ''}`] : [],
        )
      : [],
  );

describe('memory tools', () => {
  it("the model remembers, searches and forgets, in its own user's memory only", async () => {
    const tools = memoryTools({ url: server.url, timeoutMs: WARM, userId: 'jo' });
    expect(Object.keys(tools)).toEqual(['search_memory', 'remember_fact', 'forget', 'get_profile']);

    const saving = scripted(
      toolCall('remember_fact', { text: 'Jo is allergic to peanuts', importance: 0.9 }),
      answer('I will remember that.'),
    );
    const saved = await generateText({
      model: saving.model,
      prompt: 'Remember that I am allergic to peanuts.',
      tools,
      stopWhen: stepCountIs(3),
    });
    expect(saved.text).toBe('I will remember that.');
    const { search } = await sm.search({ query: 'peanuts', userId: 'jo' });
    expect(search.map((h) => h.text)).toEqual(['Jo is allergic to peanuts']);
    const id = search[0]!.id;
    expect(toolOutputs(saving.prompts[1]!)).toEqual([`text: Saved memory ${id}: Jo is allergic to peanuts`]);
    expect(saved.steps[0]!.toolResults[0]!.output).toMatchObject({
      structured: { action: 'created', memory: { id, content: 'Jo is allergic to peanuts' } },
    });
    expect((await sm.search({ query: 'peanuts', userId: 'alex' })).search).toEqual([]);

    const finding = scripted(
      toolCall('search_memory', { query: 'peanut allergy' }),
      answer('You are allergic to peanuts.'),
    );
    await generateText({ model: finding.model, prompt: 'What am I allergic to?', tools, stopWhen: stepCountIs(3) });
    expect(toolOutputs(finding.prompts[1]!)[0]).toMatch(
      new RegExp(`^text: 1\\. \\[fact ${id}, \\d{4}-\\d\\d-\\d\\d\\] Jo is allergic to peanuts$`),
    );
    // Another user's tools search another memory.
    const elsewhere = scripted(toolCall('search_memory', { query: 'peanut allergy' }), answer('Nothing.'));
    await generateText({
      model: elsewhere.model,
      prompt: 'What am I allergic to?',
      tools: memoryTools({ url: server.url, timeoutMs: WARM, userId: 'alex' }),
      stopWhen: stepCountIs(3),
    });
    expect(toolOutputs(elsewhere.prompts[1]!)).toEqual(['text: Nothing in memory matches "peanut allergy".']);
    // Nor can they forget it by its id.
    const stranger = scripted(toolCall('forget', { id }), answer('Could not.'));
    await generateText({
      model: stranger.model,
      prompt: 'Forget that.',
      tools: memoryTools({ url: server.url, timeoutMs: WARM, userId: 'alex' }),
      stopWhen: stepCountIs(3),
    });
    expect(toolOutputs(stranger.prompts[1]!)).toEqual([`error-text: memory ${id} not found`]);
    expect((await sm.search({ query: 'peanuts', userId: 'jo' })).search).toHaveLength(1);

    const forgetting = scripted(toolCall('forget', { id }), answer('Forgotten.'));
    await generateText({ model: forgetting.model, prompt: 'Forget my allergy.', tools, stopWhen: stepCountIs(3) });
    expect(toolOutputs(forgetting.prompts[1]!)).toEqual(['text: Deleted 1 memories and 0 turns.']);
    expect((await sm.search({ query: 'peanuts', userId: 'jo' })).search).toEqual([]);
  });

  it('get_profile gives the model the standing instructions and preferences its user stated, and another user none of them', async () => {
    const { model } = scripted(answer('Bien sûr.'), answer('Noted.'));
    const memory = withMemory(model, { url: server.url, timeoutMs: WARM, userId: 'rene', sessionId: 'profile-1' });
    await generateText({ model: memory, prompt: 'From now on answer in French.' });
    await generateText({ model: memory, prompt: 'I prefer tea to coffee.' });

    const asking = scripted(toolCall('get_profile', {}), answer('Vous préférez le thé.'));
    await generateText({
      model: asking.model,
      prompt: 'What do you know about me?',
      tools: memoryTools({ url: server.url, timeoutMs: WARM, userId: 'rene' }),
      stopWhen: stepCountIs(3),
    });
    const [profile] = toolOutputs(asking.prompts[1]!);
    expect(profile).toMatch(/^text: ## Standing instructions\n- From now on answer in French\. \(memory \d+\)\n/);
    expect(profile).toMatch(/\n## Preferences\n- User prefers tea to coffee \(memory \d+\)/);

    const stranger = scripted(toolCall('get_profile', {}), answer('Nothing yet.'));
    await generateText({
      model: stranger.model,
      prompt: 'What do you know about me?',
      tools: memoryTools({ url: server.url, timeoutMs: WARM, userId: 'sam' }),
      stopWhen: stepCountIs(3),
    });
    expect(toolOutputs(stranger.prompts[1]!)).toEqual([
      'text: Memory holds no standing instructions, preferences or profile facts for this user yet.',
    ]);
  });

  it('bad arguments from the model come back to it as a tool error; an unknown tool name is refused when the tools are made', async () => {
    const tools = memoryTools({ url: server.url, timeoutMs: WARM, userId: 'jo', tools: ['forget'] });
    const { model, prompts } = scripted(toolCall('forget', { id: 1, query: 'peanuts' }), answer('Sorry.'));
    const result = await generateText({ model, prompt: 'Forget it.', tools, stopWhen: stepCountIs(3) });
    expect(result.text).toBe('Sorry.');
    expect(toolOutputs(prompts[1]!)).toEqual(['error-text: Give exactly one of id or query.']);
    expect(() => memoryTools({ url: server.url, timeoutMs: WARM, tools: ['search', 'forget'] })).toThrow(
      /no tool named search \(there are search_memory, /,
    );
  });
});

/** A local HTTP server answering every request with `handle`; resolves with its GraphQL URL. */
async function fakeService(handle: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const fake = createServer(handle).listen(0, '127.0.0.1');
  await new Promise((resolve) => fake.once('listening', resolve));
  return { url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/graphql`, server: fake };
}

describe('the memory service down', () => {
  let refusedUrl: string;
  let failing: { url: string; server: Server };
  let silent: { url: string; server: Server };
  let addTurnFails: { url: string; server: Server };

  beforeAll(async () => {
    // A port nothing listens on: bound once, then closed.
    const closed = await fakeService(() => {});
    refusedUrl = closed.url;
    await new Promise((resolve) => closed.server.close(resolve));
    failing = await fakeService((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable'));
    // Accepts the request and never answers.
    silent = await fakeService(() => {});
    // The real service for reads; every addTurn answered 500.
    addTurnFails = await fakeService(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      if ((JSON.parse(body) as { operationName: string }).operationName === 'addTurn')
        return void res.writeHead(500).end('boom');
      const upstream = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
  });
  afterAll(async () => {
    for (const fake of [failing, silent, addTurnFails]) {
      fake?.server.closeAllConnections();
      await new Promise((resolve) => fake?.server.close(resolve));
    }
  });

  it.each([
    ['refused', () => refusedUrl, /no context\): NETWORK: cannot reach .*connection refused/],
    ['answering 503', () => failing.url, /no context\): HTTP 503: not a GraphQL response/],
  ])('%s: generateText still answers, without memory, and warns', async (_name, url, warning) => {
    const logger = recorder();
    const { model, prompts } = scripted(answer('Hello!'));
    const result = await generateText({
      model: withMemory(model, { url: url(), userId: 'alex', sessionId: 'down-1', logger }),
      prompt: 'Hi, where does Maria live?',
    });
    expect(result.text).toBe('Hello!');
    expect(systemTexts(prompts[0]!)).toEqual([]);
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[0]).toMatch(warning);
    expect(logger.lines[1]).toMatch(/^symbiosis-memory: the turns of this call were not all recorded: /);
  });

  it('silent past timeoutMs: the answer comes after the time limit, streamed too', async () => {
    const logger = recorder();
    const { model } = streaming(['Hello ', 'there.']);
    const started = Date.now();
    const result = streamText({
      model: withMemory(model, { url: silent.url, userId: 'alex', sessionId: 'down-2', logger, timeoutMs: 300 }),
      prompt: 'Hi!',
    });
    expect(await result.text).toBe('Hello there.');
    // The context wait and the user turn's wait, each cut at 300 ms.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(logger.lines).toEqual([
      'symbiosis-memory: answering without memory (no context): context: no answer within 300 ms',
      'symbiosis-memory: the turns of this call were not all recorded: addTurn: no answer within 300 ms',
    ]);
  });

  it('a recording failure after the answer only warns; the context still came', async () => {
    const logger = recorder();
    const { model, prompts } = scripted(answer('In Lisbon.'));
    const result = await generateText({
      model: withMemory(model, { url: addTurnFails.url, timeoutMs: WARM, userId: 'alex', sessionId: 'down-3', logger }),
      prompt: 'Where does Maria live?',
    });
    expect(result.text).toBe('In Lisbon.');
    expect(systemTexts(prompts[0]!).join('\n')).toMatch(/Maria lives in Lisbon/);
    expect(logger.lines).toEqual([
      'symbiosis-memory: the turns of this call were not all recorded: HTTP 500: not a GraphQL response',
    ]);
    expect(await turnsOf('down-3', 'alex')).toEqual([]);
  });

  it('a tool call with the service down reaches the model as a tool error, and the answer still comes', async () => {
    const logger = recorder();
    const { model, prompts } = scripted(
      toolCall('search_memory', { query: 'Maria' }),
      answer('I cannot check my memory right now.'),
    );
    const result = await generateText({
      model,
      prompt: 'Where does Maria live?',
      tools: memoryTools({ url: refusedUrl, userId: 'alex', logger }),
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('I cannot check my memory right now.');
    expect(toolOutputs(prompts[1]!)).toEqual(['error-text: Memory is unavailable right now; answer without it.']);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      /^symbiosis-memory: tool search_memory failed: NETWORK: cannot reach .*connection refused/,
    );
  });
});

describe('a token, and a bad argument', () => {
  const TOKEN = 'ai-sdk-test-token-7c1e9a';
  let guarded: Awaited<ReturnType<typeof smServe>>;
  beforeAll(async () => {
    guarded = await smServe(join(dir, 'guarded.db'), ['--no-scheduler'], { SM_API_TOKEN: TOKEN });
  }, 60_000);
  afterAll(() => guarded?.stop());

  it('with the token, memory works; with a wrong one, the answer comes without memory and the warning says AUTH', async () => {
    const { model } = scripted(answer('Noted.'), answer('Hello.'));
    await generateText({
      model: withMemory(model, { url: guarded.url, timeoutMs: WARM, token: TOKEN, userId: 'lee', sessionId: 'tok-1' }),
      prompt: 'I live in Porto.',
    });
    const owner = createClient({ url: guarded.url, token: TOKEN });
    expect((await owner.turns({ sessionId: 'tok-1', userId: 'lee' })).turns.totalCount).toBe(2);

    const logger = recorder();
    const result = await generateText({
      model: withMemory(model, {
        url: guarded.url,
        timeoutMs: WARM,
        token: 'not-the-token',
        userId: 'lee',
        sessionId: 'tok-1',
        logger,
      }),
      prompt: 'Where do I live?',
    });
    expect(result.text).toBe('Hello.');
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[0]).toMatch(
      /^symbiosis-memory: answering without memory \(no context\): AUTH: missing, wrong or revoked token/,
    );
    expect(logger.lines[1]).toMatch(
      /^symbiosis-memory: the turns of this call were not all recorded: AUTH: missing, wrong or revoked token/,
    );
    expect((await owner.turns({ sessionId: 'tok-1', userId: 'lee' })).turns.totalCount).toBe(2);
    await owner.dispose();
  });

  it('a session id addTurn refuses (over 200 characters): the answer comes, the warning names BAD_USER_INPUT', async () => {
    const logger = recorder();
    const { model } = scripted(answer('Hi.'));
    const result = await generateText({
      model: withMemory(model, {
        url: server.url,
        timeoutMs: WARM,
        userId: 'alex',
        sessionId: 'x'.repeat(201),
        logger,
      }),
      prompt: 'Hello',
    });
    expect(result.text).toBe('Hi.');
    // The context query and addTurn both refuse it; the call is answered without memory.
    expect(logger.lines).toEqual([
      'symbiosis-memory: answering without memory (no context): BAD_USER_INPUT: sessionId: Too big: expected string to have <=200 characters',
      'symbiosis-memory: the turns of this call were not all recorded: BAD_USER_INPUT: input.sessionId: Too big: expected string to have <=200 characters',
    ]);
    expect(await turnsOf('x'.repeat(200), 'alex')).toEqual([]);
  });
});
