// Custom scalars: DateTime (ISO-8601 on the wire, epoch ms inside) and JSON (free-form detail).
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { builder } from './builder.ts';
import { ErrorCode, parseTime } from '../services/kernel.ts';

function toEpochMs(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const ms = typeof value === 'string' ? parseTime(value) : null;
  if (ms === null || ms < 0) {
    throw new GraphQLError(
      `DateTime: expected an ISO-8601 date-time or epoch milliseconds, got ${JSON.stringify(value)}`,
      {
        extensions: { code: ErrorCode.BadUserInput },
      },
    );
  }
  return ms;
}

export const DateTime = builder.scalarType('DateTime', {
  description:
    'A UTC instant. Output: an ISO-8601 string with milliseconds (`2024-05-01T12:00:00.000Z`). ' +
    'Input: an ISO-8601 date-time string, or epoch milliseconds (as an integer or a string of digits).',
  serialize: (ms) => new Date(ms).toISOString(),
  parseValue: toEpochMs,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.STRING) return toEpochMs(ast.value);
    if (ast.kind === Kind.INT) return toEpochMs(Number(ast.value));
    throw new GraphQLError('DateTime: expected a string or an integer literal', {
      extensions: { code: ErrorCode.BadUserInput },
    });
  },
});

export const JSONScalar = builder.scalarType('JSON', {
  description:
    'Free-form JSON (an object, list, string, number, boolean or null): details whose shape depends on the event.',
  serialize: (value) => value,
  parseValue: (value) => value,
});
