// One OpenAI-compatible client (OpenAI, Ollama, vLLM, LM Studio…) built from the config block.
// The SDK's own retries are off: failures fall back (llm mode) or retry as durable jobs (hybrid).
import type { Config } from '../core/kernel/config.ts';
import { loadedOpenAi, openAiClient } from './openai.ts';

export type ChatResult = { content: string; promptTokens: number; completionTokens: number };

export type Llm = {
  model: string;
  chat(messages: { role: 'system' | 'user'; content: string }[]): Promise<ChatResult>;
};

/** The chat model of the `llm` block, or null without a model or credentials (see openAiClient). */
export function createLlm(config: Config['llm'], env: NodeJS.ProcessEnv = process.env): Llm | null {
  const client = openAiClient(config, env);
  if (!client) return null;
  return {
    model: config.model,
    async chat(messages) {
      const completion = await (await client()).chat.completions.create({
        model: config.model,
        messages,
        temperature: 0,
      });
      return {
        content: completion.choices[0]?.message?.content ?? '',
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      };
    },
  };
}

/** An error's message without request details (which could carry a key or user text). */
export function describeLlmError(error: unknown): string {
  // The SDK is loaded by the first request: if it is not, no request made this error.
  const OpenAI = loadedOpenAi()?.default;
  if (OpenAI && error instanceof OpenAI.APIConnectionTimeoutError) return 'timeout';
  if (OpenAI && error instanceof OpenAI.APIConnectionError) return 'connection failed';
  if (OpenAI && error instanceof OpenAI.APIError) return `HTTP ${error.status ?? '?'}`;
  if (error instanceof Error) return error.message.slice(0, 300);
  return String(error);
}
