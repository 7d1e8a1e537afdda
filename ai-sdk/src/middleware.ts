// The language-model middleware: before each call, the memory's context block for the latest
// user message goes in as a system message; after it, the user's message and the model's answer
// are stored as turns of the session (for a stream, when it has been read to the end). The memory
// service failing or slow only costs this call its memory, with a warning.
import { Role } from '@symbiosis-memory/client';
import { wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { connect, type Connection, type MemoryOptions } from './connection.ts';
import { answerText, latestUserText, newUserText, withSystem, type CallOptions } from './prompt.ts';

/** The key of a call's `providerOptions` that overrides the session, user or agent for that call. */
export const PROVIDER_OPTIONS_KEY = 'symbiosis';

export type MemoryMiddlewareOptions = MemoryOptions & {
  /** The conversation; every call of it shares one. Can be given per call instead (`providerOptions.symbiosis.sessionId`). */
  sessionId?: string;
  /** Size of the context block in tokens (the server's `context.token_budget`, 1 000, by default). */
  tokenBudget?: number;
  /** Put the context block in front of each call (default true). */
  context?: boolean;
  /** Store the user's message and the model's answer as turns (default true). */
  record?: boolean;
};

/** Whose memory one call uses: the options, overridden by the call's `providerOptions.symbiosis`. */
export type CallSpace = { sessionId: string; userId?: string; agentId?: string };

/** The context query's limit on the server. */
const MAX_QUERY = 20_000;

type StreamPart =
  Awaited<
    ReturnType<Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0]['doStream']>
  >['stream'] extends ReadableStream<infer P>
    ? P
    : never;

/**
 * Middleware for `wrapLanguageModel`: the memory of `userId` (and `agentId`) in front of every call
 * and the session's turns recorded after it.
 */
export function memoryMiddleware(options: MemoryMiddlewareOptions): LanguageModelMiddleware {
  const memory = connect(options);
  let warnedNoSession = false;
  const spaceOf = (params: CallOptions): CallSpace | null => {
    const own = params.providerOptions?.[PROVIDER_OPTIONS_KEY] ?? {};
    const pick = (key: keyof CallSpace) => (typeof own[key] === 'string' ? (own[key] as string) : options[key]);
    const sessionId = pick('sessionId');
    if (sessionId) return { sessionId, userId: pick('userId'), agentId: pick('agentId') };
    if (!warnedNoSession)
      memory.logger.warn(
        'symbiosis-memory: no sessionId (give one in the options or in providerOptions.symbiosis): calls go without memory',
      );
    warnedNoSession = true;
    return null;
  };

  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      if (options.context === false) return params;
      const space = spaceOf(params);
      if (!space) return params;
      const query = latestUserText(params.prompt).slice(0, MAX_QUERY) || undefined;
      try {
        const { context } = await memory.call('context', (client) =>
          client.context({ ...space, query, tokenBudget: options.tokenBudget }),
        );
        return context.markdown ? { ...params, prompt: withSystem(params.prompt, context.markdown) } : params;
      } catch (error) {
        memory.warn('answering without memory (no context)', error);
        return params;
      }
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      await record(
        memory,
        options.record === false ? null : spaceOf(params),
        newUserText(params.prompt),
        answerText(result.content),
      );
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      let answer = '';
      const recording = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') answer += part.delta;
          controller.enqueue(part);
        },
        flush: () =>
          record(memory, options.record === false ? null : spaceOf(params), newUserText(params.prompt), answer.trim()),
      });
      return { ...rest, stream: stream.pipeThrough(recording) };
    },
  };
}

/** Stores what the user said and what the model answered, in that order; a failure only warns. */
async function record(memory: Connection, space: CallSpace | null, said: string, answer: string): Promise<void> {
  if (!space || (!said && !answer)) return;
  const { sessionId, userId, agentId } = space;
  try {
    if (said)
      await memory.call('addTurn', (client) =>
        client.addTurn({ input: { sessionId, role: Role.User, text: said }, userId, agentId }),
      );
    if (answer)
      await memory.call('addTurn', (client) =>
        client.addTurn({ input: { sessionId, role: Role.Assistant, text: answer }, userId, agentId }),
      );
  } catch (error) {
    memory.warn('the turns of this call were not all recorded', error);
  }
}

/** `model` with memory: `wrapLanguageModel({ model, middleware: memoryMiddleware(options) })`. */
export function withMemory(
  model: Parameters<typeof wrapLanguageModel>[0]['model'],
  options: MemoryMiddlewareOptions,
): ReturnType<typeof wrapLanguageModel> {
  return wrapLanguageModel({ model, middleware: memoryMiddleware(options) });
}
