// Turns and sessions as the adapters read them: pages of a session's history, sessions and their
// counts, and the addTurn input rules (the write itself is ingest.ts). Thin: the core's reads as they are.
export { getSession, listSessions, sessionKey, sessionsByKeys } from '../core/turns/sessions.ts';
export { addTurnSchema, turnIn, turnsByIds } from '../core/turns/turns.ts';
export { recentTurnsBySession, turnCountsBySession, turnsBefore } from '../core/reads/batch-reads.ts';
