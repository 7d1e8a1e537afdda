// One way to build an OpenAI SDK client from a config block (`llm` or `embedding`). The SDK is
// loaded on the first request, not when a client is configured: a command that only reads the
// database (`sm search`, `sm get-context`) then never compiles it (150 KB of the CLI bundle).
import type OpenAI from 'openai';

type Block = { model: string; endpoint: string; api_key_env: string; timeout_s: number };
type Sdk = typeof import('openai');

let sdk: Sdk | undefined;

/** The SDK module, loaded once. */
export async function loadOpenAi(): Promise<Sdk> {
  sdk ??= await import('openai');
  return sdk;
}

/** The SDK module if something loaded it: an error can only be one of its classes if it was. */
export const loadedOpenAi = (): Sdk | undefined => sdk;

/**
 * The key comes from the env var named by `api_key_env` (then OPENAI_API_KEY); the endpoint from
 * `endpoint` (then OPENAI_BASE_URL, then the SDK default). A custom endpoint needs no key.
 * Null when no model is configured or no credentials can be had; otherwise the client, built on
 * first use. The SDK's own retries are off: failures fall back (llm mode) or retry as durable
 * jobs with backoff.
 */
export function openAiClient(config: Block, env: NodeJS.ProcessEnv): (() => Promise<OpenAI>) | null {
  if (!config.model) return null;
  const baseURL = config.endpoint || env.OPENAI_BASE_URL || undefined;
  const apiKey = env[config.api_key_env] || env.OPENAI_API_KEY || (baseURL ? 'not-needed' : undefined);
  if (!apiKey) return null;
  let client: OpenAI | undefined;
  return async () => {
    const { default: OpenAIClient } = await loadOpenAi();
    client ??= new OpenAIClient({ apiKey, baseURL, timeout: config.timeout_s * 1000, maxRetries: 0 });
    return client;
  };
}

/** Where requests go, without anything secret (no query string, no credentials). */
export function endpointName(config: Pick<Block, 'endpoint'>, env: NodeJS.ProcessEnv): string {
  const raw = config.endpoint || env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    return 'the configured endpoint';
  }
}
