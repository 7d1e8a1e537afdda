// Symbiosis Memory for the AI SDK: `memoryMiddleware` / `withMemory` give a model the user's
// memory on every call and record the conversation; `memoryTools` lets the model search and
// change that memory itself.
export { DEFAULT_TIMEOUT_MS, MemoryTimeoutError, type Logger, type MemoryOptions } from './connection.ts';
export {
  memoryMiddleware,
  withMemory,
  PROVIDER_OPTIONS_KEY,
  type CallSpace,
  type MemoryMiddlewareOptions,
} from './middleware.ts';
export { DEFAULT_TOOLS, memoryTools, TOOL_NAMES, type MemoryToolOutput, type MemoryToolsOptions } from './tools.ts';
