// The context block as every adapter asks it: input parsed once, the query (or the session's
// latest user turn) embedded when an embedding endpoint is configured, the read answered in a read
// worker when the pool takes it, and the memories the block hands out counted as accessed.
import {
  contextOfParsed,
  contextQueryText,
  contextSchema,
  type Context,
  type ContextInput,
} from '../core/context/context.ts';
import type { Space } from '../core/kernel/space.ts';
import { parseInput } from '../core/kernel/validation.ts';
import { embedQuery } from './embed.ts';
import { answerRead } from './read-access.ts';
import type { Runtime } from './runtime.ts';
export { MAX_TOKEN_BUDGET, MIN_TOKEN_BUDGET, TOKENIZER } from '../core/context/context.ts';

const LATEST_USER_TURN =
  "select text from turns where user_id = ? and session_id = ? and role = 'user' and (cast(? as text) is null or agent_id is null or agent_id = ?) order by at desc, id desc limit 1";

/** The context block for a session (docs/memory.md), ranked with the vector signal when there is one. */
export async function assembleContext(runtime: Runtime, space: Space, input: ContextInput): Promise<Context> {
  const parsed = parseInput(contextSchema, input); // bad input fails before any network call
  const text = await contextQueryText(parsed.query, async () => {
    const last = await runtime.store.sql.get<{ text: string }>(LATEST_USER_TURN, [
      space.userId,
      parsed.sessionId,
      space.agentId,
      space.agentId,
    ]);
    return last?.text ?? null;
  });
  const queryVector = text ? await embedQuery(runtime, text) : null;
  return answerRead(runtime, {
    call: { kind: 'context', space, input: parsed, queryVector },
    inProcess: () => contextOfParsed(runtime.store, space, parsed, { queryVector }),
    // Once per memory however many sections hold it; an archived one shown by request is not reinforced.
    accessed: (context) =>
      new Set(context.items.flatMap((i) => (i.memory && i.memory.status === 'active' ? [i.memory.id] : []))),
  });
}
