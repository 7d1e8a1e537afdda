// One OpenAI-compatible client (OpenAI, Ollama, vLLM, LM Studio…) built from the config block.
// The SDK's own retries are off: failures fall back (llm mode) or retry as durable jobs (hybrid).
import OpenAI from 'openai';
import type { Config } from '../core/config.ts';

export type ChatResult = { content: string; promptTokens: number; completionTokens: number };

export type Llm = {
  model: string;
  chat(messages: { role: 'system' | 'user'; content: string }[]): Promise<ChatResult>;
};

/**
 * The key comes from the env var named by `api_key_env` (then OPENAI_API_KEY); the endpoint from
 * `endpoint` (then OPENAI_BASE_URL, then the SDK default). A local endpoint needs no key.
 * Returns null when no model is configured or no credentials can be had.
 */
export function createLlm(config: Config['llm'], env: NodeJS.ProcessEnv = process.env): Llm | null {
  if (!config.model) return null;
  const baseURL = config.endpoint || env.OPENAI_BASE_URL || undefined;
  const apiKey = env[config.api_key_env] || env.OPENAI_API_KEY || (baseURL ? 'not-needed' : undefined);
  if (!apiKey) return null;
  const client = new OpenAI({ apiKey, baseURL, timeout: config.timeout_s * 1000, maxRetries: 0 });
  return {
    model: config.model,
    async chat(messages) {
      const completion = await client.chat.completions.create({
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
  if (error instanceof OpenAI.APIConnectionTimeoutError) return 'timeout';
  if (error instanceof OpenAI.APIConnectionError) return 'connection failed';
  if (error instanceof OpenAI.APIError) return `HTTP ${error.status ?? '?'}`;
  if (error instanceof Error) return error.message.slice(0, 300);
  return String(error);
}
