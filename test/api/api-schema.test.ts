// The schema is the API contract: the committed schema.graphql matches the code, every type,
// field, argument and enum value is documented, and non-null is the default.
import { readFileSync } from 'node:fs';
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isIntrospectionType,
  isSpecifiedScalarType,
  isUnionType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../server/graphql/index.ts';
import { printSchemaFile, SCHEMA_FILE } from '../../server/graphql/print.ts';

describe('schema', () => {
  it('server/graphql/schema.graphql is up to date (npm run schema:print)', () => {
    expect(
      printSchemaFile(schema) === readFileSync(SCHEMA_FILE, 'utf8'),
      'schema.graphql is stale: run npm run schema:print',
    ).toBe(true);
  });

  it('documents every type, field, argument and enum value', () => {
    const missing: string[] = [];
    const check = (what: string, description: string | null | undefined) => {
      if (!description?.trim()) missing.push(what);
    };
    for (const type of Object.values(schema.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      check(type.name, type.description);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          check(`${type.name}.${field.name}`, field.description);
          for (const arg of 'args' in field ? field.args : [])
            check(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      }
      if (isEnumType(type))
        for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
      if (isUnionType(type)) check(type.name, type.description);
    }
    expect(missing).toEqual([]);
  });

  it('has the operations the API promises', () => {
    const names = (type: ReturnType<typeof schema.getQueryType>) => Object.keys(type!.getFields()).sort();
    expect(names(schema.getQueryType())).toEqual(
      expect.arrayContaining([
        'config',
        'context',
        'doctor',
        'entities',
        'entity',
        'explain',
        'jobs',
        'memories',
        'memory',
        'search',
        'session',
        'sessions',
        'stats',
        'turns',
      ]),
    );
    expect(names(schema.getMutationType())).toEqual(
      expect.arrayContaining([
        'addTurn',
        'confirmMemory',
        'consolidateSession',
        'correctMemory',
        'forget',
        'gc',
        'remember',
        'runJobs',
        'runMaintenance',
        'setConfig',
        'updateMemory',
      ]),
    );
    expect(names(schema.getSubscriptionType())).toEqual(
      expect.arrayContaining(['consolidationEvents', 'memoryEvents', 'turnAdded']),
    );
    for (const type of [
      'Session',
      'Turn',
      'Memory',
      'Entity',
      'Explanation',
      'SearchHit',
      'Context',
      'GcReport',
      'Stats',
    ]) {
      expect(schema.getType(type), type).toBeDefined();
    }
  });

  it('is non-null by default', () => {
    const memory = schema.getType('Memory');
    if (!isObjectType(memory)) throw new Error('Memory is not an object type');
    expect(String(memory.getFields().content!.type)).toBe('String!');
    expect(String(memory.getFields().sources!.type)).toBe('[MemorySource!]!');
    expect(String(memory.getFields().validUntil!.type)).toBe('DateTime');
  });
});
