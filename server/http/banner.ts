// What a person sees when they start the service in a terminal: where it answers, which file it
// keeps, who may call it and which models it uses. Logs say the same as JSON lines elsewhere.
import type { Config } from '../core/kernel/config.ts';
import { endpointName } from '../llm/openai.ts';

export type BannerInfo = {
  version: string;
  url: string;
  dbPath: string;
  /** The file did not exist before this start. */
  created: boolean;
  token: boolean;
  config: Config;
};

/** The facts of a start, without secrets: the token is only said to be there. */
export function startFacts({ url, dbPath, created, token, config }: BannerInfo) {
  const base = url.replace(/\/graphql$/, '');
  return {
    inspector: `${base}/`,
    graphql: `${url} (GraphiQL in a browser)`,
    mcp: `${base}/mcp`,
    database: `${dbPath}${created ? ' (new)' : ''}`,
    auth: token
      ? 'token required (SM_API_TOKEN); scoped tokens: sm token create --user U'
      : 'none on loopback (set SM_API_TOKEN to require a token)',
    llm: config.llm.model
      ? `${config.llm.model} at ${endpointName(config.llm, process.env)}, extraction ${config.extractor.mode}`
      : 'none: heuristic extraction, template reflections (set llm.model)',
    embeddings: config.embedding.model
      ? `${config.embedding.model} at ${endpointName(config.embedding, process.env)}, ${config.embedding.dimensions}-d`
      : 'none: keyword and entity search (set embedding.model)',
  };
}

export function formatBanner(info: BannerInfo): string {
  const facts = startFacts(info);
  const rows: [string, string][] = [
    ['Inspector', facts.inspector],
    ['GraphQL', facts.graphql],
    ['MCP', facts.mcp],
    ['Database', facts.database],
    ['Auth', facts.auth],
    ['LLM', facts.llm],
    ['Embeddings', facts.embeddings],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `Symbiosis Memory ${info.version}`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}
