// The schema: importing each domain file registers its types and root fields on the builder.
import { builder } from './builder.ts';
import './roots.ts';
import './scalars.ts';
import './enums.ts';
import './memories.ts';
import './memory-mutations.ts';
import './memory-events.ts';
import './turns.ts';
import './sessions.ts';
import './entities.ts';
import './explain.ts';
import './context.ts';
import './gc.ts';
import './stats.ts';
import './search.ts';
import './consolidation.ts';
import './maintenance.ts';
import './jobs.ts';
import './config.ts';
import './doctor.ts';
import './embeddings.ts';
import './users.ts';
import './profile.ts';
import './tokens.ts';

export type { Context, ChangeFeed, ConsolidationChange, MemoryChange, TurnChange } from './builder.ts';

export const schema = builder.toSchema();
