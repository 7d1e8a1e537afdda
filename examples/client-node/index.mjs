// The typed client as an ES module: store a turn, search memory for it, print what came back.
// SM_URL (default http://127.0.0.1:8787/graphql) and SM_API_TOKEN say which server.
import { createClient, Role, SymbiosisError } from '@symbiosis-memory/client';

const sm = createClient({
  url: process.env.SM_URL ?? 'http://127.0.0.1:8787/graphql',
  token: process.env.SM_API_TOKEN,
});
const sessionId = process.argv[2] ?? 'example-esm';

try {
  const { addTurn } = await sm.addTurn({
    input: { sessionId, role: Role.User, text: 'I live in Lisbon and I like JRPGs' },
  });
  console.log(`stored turn ${addTurn.turn.id} in ${sessionId}`);
  for (const { action, memory } of addTurn.extracted) console.log(`  ${action} ${memory.content}`);

  const { search } = await sm.search({ query: 'where do I live', limit: 3 });
  console.log(`search: ${search.length} hits`);
  for (const hit of search) console.log(`  ${hit.kind} ${hit.text}`);
} catch (error) {
  // NETWORK (server out of reach), AUTH (token), or the server's code (BAD_USER_INPUT, ...).
  if (!(error instanceof SymbiosisError)) throw error;
  console.error(`${error.code}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await sm.dispose();
}
