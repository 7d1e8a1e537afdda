// Doctor: health checks of the database and the configured providers.
import { runDoctor, type DoctorCheck as DoctorCheckShape } from '../services/doctor.ts';
import { builder } from './builder.ts';
import { requireAdmin } from './spaces.ts';

const DoctorCheck = builder.objectRef<DoctorCheckShape>('DoctorCheck').implement({
  description: 'One health check, with what it found and what to do when it failed.',
  fields: (t) => ({
    name: t.exposeString('name', {
      description:
        'Which check: `fts`, `sqlite-vec`, `integrity`, `llm`, `embedding`, `embedding-lock`, `semantic` (the local word vectors) or `jobs`.',
    }),
    ok: t.exposeBoolean('ok', {
      description: 'True when it passed (an optional provider that is not configured passes).',
    }),
    detail: t.exposeString('detail', { description: 'What was found.' }),
    hint: t.exposeString('hint', {
      nullable: true,
      description: 'What to do about a failure; null when nothing needs doing.',
    }),
  }),
});

builder.queryFields((t) => ({
  doctor: t.field({
    type: [DoctorCheck],
    description:
      'Checks the installation: FTS5, sqlite-vec, database integrity (PRAGMA quick_check), the LLM endpoint (a 1-token ' +
      'completion) and the embedding endpoint (one embedding, of the configured size) when configured, the embedding ' +
      'size locked in the database against the config, and pending or dead jobs. Waits for the endpoints at most their ' +
      'configured timeouts.',
    resolve: (_root, _args, context) => {
      requireAdmin(context);
      return runDoctor(context.runtime);
    },
  }),
}));
