// The Python client's generated half (python/symbiosis_memory/_generated.py and tools.json) from
// the committed schema, the TypeScript client's operations and its model tools: the same
// operations with the same selections, as snake_case methods whose keyword arguments are the
// operations' variables (an `input` object's fields spread out), typed with TypedDicts and enums
// of the schema. `npm run codegen` writes the files; test/packages/python-client.test.ts checks they are
// up to date with this same function.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  parse,
  print,
  typeFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { toolDefinitions } from '../client/src/tools.ts';

export const PYTHON_FILES = {
  generated: 'python/symbiosis_memory/_generated.py',
  tools: 'python/symbiosis_memory/tools.json',
} as const;

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const SCALARS: Record<string, { input: string; output: string }> = {
  Int: { input: 'int', output: 'int' },
  Float: { input: 'float', output: 'float' },
  String: { input: 'str', output: 'str' },
  ID: { input: 'str', output: 'str' },
  Boolean: { input: 'bool', output: 'bool' },
  DateTime: { input: 'str | datetime', output: 'str' },
  JSON: { input: 'Any', output: 'Any' },
};

const snake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const pyName = (name: string) => (KEYWORDS.has(name) ? `${name}_` : name);
const docstring = (text: string | null | undefined, indent: string) =>
  text
    ? `${indent}"""${text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"').replace(/\n/g, `\n${indent}`).trimEnd()}"""\n`
    : '';
const literal = (value: string) => JSON.stringify(value);

function inputType(type: GraphQLInputType): string {
  if (isNonNullType(type)) return inputType(type.ofType);
  if (isListType(type)) return `list[${inputType(type.ofType)}]`;
  if (isScalarType(type)) return SCALARS[type.name]?.input ?? 'Any';
  if (isEnumType(type)) return `${type.name} | str`;
  return type.name;
}

function outputType(type: GraphQLOutputType): string {
  if (isNonNullType(type)) return outputType(type.ofType);
  const inner = isListType(type)
    ? `list[${outputType(type.ofType)}]`
    : isScalarType(type)
      ? (SCALARS[type.name]?.output ?? 'Any')
      : isEnumType(type)
        ? `${type.name}Value`
        : type.name;
  return inner;
}
const nullable = (type: GraphQLOutputType) => (isNonNullType(type) ? outputType(type) : `${outputType(type)} | None`);

function enumCode(type: GraphQLEnumType): string {
  const values = type.getValues();
  const members = values.map((v) => `    ${pyName(v.name)} = ${literal(v.name)}\n`).join('');
  return `class ${type.name}(StrEnum):\n${docstring(type.description, '    ')}${members}\n\n${type.name}Value = Literal[${values.map((v) => literal(v.name)).join(', ')}]\n`;
}

/** A TypedDict; the functional form when a key is not a Python name. */
function typedDict(
  name: string,
  description: string | null | undefined,
  fields: [string, string][],
  total: boolean,
): string {
  if (fields.some(([key]) => KEYWORDS.has(key))) {
    return `${name} = TypedDict(${literal(name)}, {${fields.map(([key, type]) => `${literal(key)}: ${literal(type)}`).join(', ')}}, total=${total ? 'True' : 'False'})\n`;
  }
  const body = fields.map(([key, type]) => `    ${key}: ${type}\n`).join('');
  return `class ${name}(TypedDict${total ? '' : ', total=False'}):\n${docstring(description, '    ')}${body || '    pass\n'}`;
}

function inputObjectCode(type: GraphQLInputObjectType): string {
  const fields = Object.values(type.getFields()).map((f): [string, string] => {
    const required = isNonNullType(f.type) && f.defaultValue === undefined;
    return [f.name, required ? `Required[${inputType(f.type)}]` : inputType(f.type)];
  });
  return typedDict(type.name, type.description, fields, false);
}

/** Every field may be absent: a result holds the fields its operation selects. */
function objectCode(type: GraphQLObjectType): string {
  const fields = Object.values(type.getFields()).map((f): [string, string] => [f.name, nullable(f.type)]);
  return typedDict(type.name, type.description, fields, false);
}

type Argument = { python: string; wire: string; annotation: string; required: boolean; convert: string };

/** How a value of `type` goes on the wire: enums checked and upper-cased, datetimes as ISO strings. */
function converter(type: GraphQLInputType, value: string, label: string): string {
  const named = getNamedType(type);
  const list = isListType(isNonNullType(type) ? type.ofType : type);
  if (isEnumType(named)) return `${list ? '_enums' : '_enum'}(${named.name}, ${value}, ${literal(label)})`;
  if (named.name === 'DateTime' && !list) return `_time(${value}, ${literal(label)})`;
  return value;
}

function argumentFor(wire: string, type: GraphQLInputType, hasDefault: boolean): Argument {
  const python = pyName(snake(wire));
  const required = isNonNullType(type) && !hasDefault;
  return { python, wire, annotation: inputType(type), required, convert: converter(type, python, python) };
}

function fragmentsUsed(selection: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>) {
  for (const node of selection.selections) {
    if (node.kind === Kind.FRAGMENT_SPREAD && !seen.has(node.name.value)) {
      seen.add(node.name.value);
      fragmentsUsed(fragments.get(node.name.value)!.selectionSet, fragments, seen);
    } else if ((node.kind === Kind.FIELD || node.kind === Kind.INLINE_FRAGMENT) && node.selectionSet) {
      fragmentsUsed(node.selectionSet, fragments, seen);
    }
  }
}

type Operation = {
  name: string;
  method: string;
  kind: string;
  document: string;
  field: GraphQLField<unknown, unknown> | null;
  args: Argument[];
  variables: string;
};

function operationOf(
  schema: GraphQLSchema,
  op: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): Operation {
  const name = op.name!.value;
  const used = new Set<string>();
  fragmentsUsed(op.selectionSet, fragments, used);
  const document = [print(op), ...[...used].sort().map((f) => print(fragments.get(f)!))].join('\n\n');
  const root = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const fields = op.selectionSet.selections.filter((s) => s.kind === Kind.FIELD);
  const field = fields.length === 1 ? root.getFields()[fields[0]!.name.value]! : null;
  const args: Argument[] = [];
  const entries: string[] = [];
  for (const definition of op.variableDefinitions ?? []) {
    const wire = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType;
    const named = getNamedType(type);
    if (wire === 'input' && isInputObjectType(named)) {
      // The input object's fields become keyword arguments of their own.
      const inner = Object.values(named.getFields()).map((f) =>
        argumentFor(f.name, f.type, f.defaultValue !== undefined),
      );
      args.push(...inner);
      entries.push(`"input": _present({${inner.map((a) => `${literal(a.wire)}: ${a.convert}`).join(', ')}})`);
    } else {
      const arg = argumentFor(wire, type, definition.defaultValue !== undefined);
      args.push(arg);
      entries.push(`${literal(wire)}: ${arg.convert}`);
    }
  }
  const names = args.map((a) => a.python);
  const clash = names.find((n, i) => names.indexOf(n) !== i);
  if (clash) throw new Error(`${name}: two arguments named ${clash}`);
  return {
    name,
    method: pyName(snake(name)),
    kind: op.operation,
    document,
    field,
    args,
    variables: `{${entries.join(', ')}}`,
  };
}

function methodCode(op: Operation, async: boolean): string {
  const ordered = [...op.args.filter((a) => a.required), ...op.args.filter((a) => !a.required)];
  const params = ordered.map((a) =>
    a.required ? `${a.python}: ${a.annotation}` : `${a.python}: ${a.annotation} | None = None`,
  );
  const signature = params.length ? `self, *, ${params.join(', ')}` : 'self';
  const returns = op.field ? nullable(op.field.type) : 'dict[str, Any]';
  const description = op.field?.description ?? `The ${op.name} ${op.kind}.`;
  return (
    `    ${async ? 'async ' : ''}def ${op.method}(${signature}) -> ${returns}:\n` +
    docstring(description, '        ') +
    `        return ${async ? 'await ' : ''}self._execute(_${op.method.toUpperCase()}, ${op.variables})\n`
  );
}

/** The queries and mutations of client/operations, by method name. */
function readOperations(root: string, schema: GraphQLSchema): Operation[] {
  const dir = join(root, 'client/operations');
  const documents: DocumentNode[] = readdirSync(dir)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => parse(readFileSync(join(dir, name), 'utf8')));
  const definitions = documents.flatMap((d) => d.definitions);
  const fragments = new Map(
    definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  // Subscriptions need a WebSocket, which httpx does not speak.
  return definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.operation !== 'subscription')
    .map((d) => operationOf(schema, d, fragments))
    .sort((a, b) => a.method.localeCompare(b.method));
}

const HEADER = [
  '# Generated by scripts/python-codegen.ts from server/graphql/schema.graphql and client/operations:',
  '# do not edit, run `npm run codegen`.',
  '# ruff: noqa',
  'from __future__ import annotations',
  '',
  'from datetime import datetime',
  'from enum import StrEnum',
  'from typing import Any, Literal, Required, TypedDict',
  '',
  'from ._runtime import Operation, _enum, _enums, _present, _time',
  '',
];

/** The schema's types as Python: enums, then input TypedDicts, then output TypedDicts (root types aside). */
function typesCode(types: GraphQLNamedType[], rootNames: Set<string | undefined>): string[] {
  const out: string[] = [];
  for (const type of types) if (isEnumType(type)) out.push('', '', enumCode(type).trimEnd());
  for (const type of types) if (isInputObjectType(type)) out.push('', '', inputObjectCode(type).trimEnd());
  for (const type of types)
    if (isObjectType(type) && !rootNames.has(type.name)) out.push('', '', objectCode(type).trimEnd());
  return out;
}

/** Each operation as an `Operation` constant, the sync and async method classes, and the OPERATIONS table. */
function operationsCode(operations: Operation[]): string[] {
  const out: string[] = ['', ''];
  for (const op of operations) {
    const space = op.args.filter((a) => a.wire === 'userId' || a.wire === 'agentId').map((a) => literal(a.wire));
    out.push(
      `_${op.method.toUpperCase()} = Operation(${literal(op.name)}, ${literal(op.kind)}, ${op.field ? literal(op.field.name) : 'None'}, ${space.length ? `frozenset({${space.join(', ')}})` : 'frozenset()'}, ${literal(op.document)})`,
    );
  }
  for (const async of [false, true]) {
    out.push(
      '',
      '',
      `class ${async ? '_AsyncOperations' : '_SyncOperations'}:`,
      `    """Every query and mutation of the TypeScript client, as ${async ? 'coroutines' : 'methods'}."""`,
      '',
      `    ${async ? 'async ' : ''}def _execute(self, operation: Operation, variables: dict[str, Any]) -> Any:`,
      '        raise NotImplementedError',
      '',
      operations
        .map((op) => methodCode(op, async))
        .join('\n')
        .trimEnd(),
    );
  }
  out.push(
    '',
    '',
    `OPERATIONS: dict[str, Operation] = {${operations.map((op) => `${literal(op.method)}: _${op.method.toUpperCase()}`).join(', ')}}`,
  );
  return out;
}

/** The content of the generated Python module and the tools file, from the files under `root`. */
export function generatePython(root: string): Record<string, string> {
  const schema = buildSchema(readFileSync(join(root, 'server/graphql/schema.graphql'), 'utf8'));
  const operations = readOperations(root, schema);
  const types = Object.values(schema.getTypeMap())
    .filter((t: GraphQLNamedType) => !t.name.startsWith('__'))
    .sort((a, b) => a.name.localeCompare(b.name));
  const rootNames = new Set([
    schema.getQueryType()?.name,
    schema.getMutationType()?.name,
    schema.getSubscriptionType()?.name,
  ]);
  // What `from symbiosis_memory import *` brings: the schema's enums and TypedDicts.
  const exported = types
    .filter((t) => isEnumType(t) || isInputObjectType(t) || (isObjectType(t) && !rootNames.has(t.name)))
    .flatMap((t) => (isEnumType(t) ? [t.name, `${t.name}Value`] : [t.name]));
  const out = [
    ...HEADER,
    ...typesCode(types, rootNames),
    ...operationsCode(operations),
    '',
    `__all__ = [${[...exported, 'OPERATIONS'].map(literal).join(', ')}]`,
    '',
  ];
  const tools = { openai: toolDefinitions('openai'), anthropic: toolDefinitions('anthropic') };
  return {
    [PYTHON_FILES.generated]: out.join('\n'),
    [PYTHON_FILES.tools]: `${JSON.stringify(tools, null, 2)}\n`,
  };
}
