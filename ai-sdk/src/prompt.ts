// Reading and extending the prompt of one language-model call, in the AI SDK's model-level types
// (derived from `ai`'s middleware type, so they follow the installed `ai`).
import type { LanguageModelMiddleware } from 'ai';

export type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
export type Prompt = CallOptions['prompt'];
type GenerateResult = Awaited<
  ReturnType<Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0]['doGenerate']>
>;
export type Content = GenerateResult['content'];

const textOf = (parts: readonly { type: string }[]) =>
  parts
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
    .trim();

/** The text of the latest user message (empty when there is none, or it holds no text). */
export function latestUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role === 'user') return textOf(message.content);
  }
  return '';
}

/**
 * The text of the user message this call answers: the last message when it is the user's. A tool
 * loop's later steps end with tool results instead, so one user message is recorded once.
 */
export function newUserText(prompt: Prompt): string {
  const last = prompt.at(-1);
  return last?.role === 'user' ? textOf(last.content) : '';
}

/** The text the model answered with. */
export const answerText = (content: Content): string => textOf(content);

/**
 * `prompt` with `system` as a system message after its leading system messages: the app's own
 * instructions stay first, and every system message stays before the conversation (some
 * providers refuse one between user and assistant messages).
 */
export function withSystem(prompt: Prompt, system: string): Prompt {
  const at = prompt.findIndex((m) => m.role !== 'system');
  const index = at === -1 ? prompt.length : at;
  return [...prompt.slice(0, index), { role: 'system', content: system }, ...prompt.slice(index)];
}
