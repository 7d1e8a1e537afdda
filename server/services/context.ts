// The context block as every adapter asks it (getContext with the vector signal: services/embed.ts).
export { contextWithRuntime as assembleContext } from './embed.ts';
