// Human-readable renderings of the API's shapes, shared by the commands.
import type {
  DecisionFieldsFragment,
  MemoryFieldsFragment,
  TurnFieldsFragment,
} from '../../client/src/generated/sdk.ts';
import { dim, fixed, table } from './output.ts';

export const lower = (value: string) => value.toLowerCase();

export const memoryLine = (m: Pick<MemoryFieldsFragment, 'id' | 'content'>) => `#${m.id} ${m.content}`;

export const turnLine = (t: Pick<TurnFieldsFragment, 'name' | 'role' | 'text'>) =>
  `${t.name ?? lower(t.role)}: ${t.text}`;

export function memoryTable(memories: MemoryFieldsFragment[]): string {
  return table(
    ['id', 'layer', 'kind', 'status', 'score', 'hits', 'tags', 'content'],
    memories.map((m) => [
      m.id,
      lower(m.layer),
      lower(m.kind),
      lower(m.status),
      fixed(m.score),
      m.hits,
      m.tags.join(','),
      m.content,
    ]),
  );
}

export function memoryDetails(m: MemoryFieldsFragment): string {
  return [
    `${memoryLine(m)}`,
    dim(
      `${lower(m.kind)} · ${lower(m.layer)} · ${lower(m.status)} · score ${fixed(m.score)} · hits ${m.hits} · confidence ${fixed(m.confidence)}${m.protected ? ' · protected' : ''}${m.tags.length ? ` · tags ${m.tags.join(',')}` : ''}`,
    ),
  ].join('\n');
}

export const decisionLine = (d: DecisionFieldsFragment) => `  ${d.at} ${lower(d.action)} ${JSON.stringify(d.detail)}`;
