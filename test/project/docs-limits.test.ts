// The "Errors and limits" section of docs/api.md is the documented list: it must name every error
// code the API can answer and state the limits the server enforces, with their current values.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../server/graphql/errors.ts';
import { MIN_TOKEN_LENGTH } from '../../server/http/auth.ts';
import { MAX_WS_MESSAGE_BYTES } from '../../server/http/ws.ts';
import { ARMOR, MAX_BODY_BYTES } from '../../server/http/yoga.ts';
import { MAX_TURN_TEXT } from '../../server/core/turns/turns.ts';

const api = readFileSync(fileURLToPath(new URL('../../docs/api.md', import.meta.url)), 'utf8');
const section = api.slice(api.indexOf('## Errors and limits'));
const row = (name: string) => section.split('\n').find((line) => line.startsWith(`| ${name}`)) ?? '';

describe('docs/api.md: errors and limits', () => {
  it('lists every error code', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(section, code).toContain(`| \`${code}\` |`);
  });

  it('states the limits the server enforces', () => {
    const n = (value: number) => value.toLocaleString('en-US');
    expect(row('request body')).toContain(`${MAX_BODY_BYTES / 1_000_000} MB`);
    expect(row('WebSocket message')).toContain(`${MAX_WS_MESSAGE_BYTES / 1_000_000} MB`);
    expect(row("a turn's text")).toContain(`${n(MAX_TURN_TEXT)} characters`);
    expect(row('query depth')).toContain(`| ${ARMOR.maxDepth.n} |`);
    expect(row('aliases')).toContain(`| ${ARMOR.maxAliases.n} |`);
    expect(row('query cost')).toContain(n(ARMOR.costLimit.maxCost));
    expect(row('tokens per document')).toContain(n(ARMOR.maxTokens.n));
    expect(row('directives')).toContain(`| ${ARMOR.maxDirectives.n} |`);
    expect(row('admin token')).toContain(`at least ${MIN_TOKEN_LENGTH} characters`);
  });
});
