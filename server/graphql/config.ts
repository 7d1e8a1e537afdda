// Configuration: read the effective config, change one key (persisted in the meta table).
import { effectiveConfig, RESTART_SECTIONS, setConfigValue, unsetConfigValue } from '../services/config-admin.ts';
import { builder } from './builder.ts';
import { requireAdmin } from './spaces.ts';

const RESTART = RESTART_SECTIONS.map((s) => `\`${s}\``).join(', ');
const APPLIES =
  `Keys of ${RESTART} apply when the server restarts; every other key (scoring, gc, mid, decay, extractor, context, ` +
  'ner, reflection...) applies at once.';

const keyArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0], description: string) =>
  t.arg.string({ required: true, description });

builder.queryFields((t) => ({
  config: t.field({
    type: 'JSON',
    description:
      'The effective configuration (defaults < config.json beside the db < saved settings < environment), as an object ' +
      'of sections. API keys appear only as the names of their environment variables (`api_key_env`), never as values. ' +
      `${APPLIES} Until a restart, the running server may still use the previous values of those.`,
    resolve: (_root, _args, context) => {
      requireAdmin(context);
      return effectiveConfig(context.store);
    },
  }),
}));

builder.mutationFields((t) => ({
  setConfig: t.field({
    type: 'JSON',
    description:
      'Sets one configuration key, saved in the database (the layer above config.json, below the environment: an ' +
      'environment variable SM_CONFIG__… for the same key still wins). The new value is validated with every layer ' +
      'first: an unknown key or an invalid value is BAD_USER_INPUT naming the key, and nothing is saved. Returns the ' +
      `new effective configuration (as \`Query.config\`). ${APPLIES}`,
    args: {
      key: keyArg(t, 'Dotted key, e.g. `scoring.w_freq` or `extractor.mode` (a whole section takes an object).'),
      value: t.arg({
        type: 'JSON',
        required: true,
        description: 'The value, as JSON (a number, string, boolean, list or object).',
      }),
    },
    resolve: async (_root, { key, value }, context) => {
      requireAdmin(context);
      return (await setConfigValue(context.store, key, value)).config;
    },
  }),
  unsetConfig: t.field({
    type: 'JSON',
    description:
      'Removes a key saved with `setConfig`, so config.json or the default applies again; returns the new effective ' +
      `configuration. Unknown keys are BAD_USER_INPUT. ${APPLIES}`,
    args: { key: keyArg(t, 'Dotted key, e.g. `scoring.w_freq` (or a whole section).') },
    resolve: async (_root, { key }, context) => {
      requireAdmin(context);
      return (await unsetConfigValue(context.store, key)).config;
    },
  }),
}));
