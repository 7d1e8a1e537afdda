// Every error the API answers carries `extensions.code` from one documented list (README,
// "Errors and limits"): ours set it where they are raised; errors from graphql-js (variable
// coercion, validation), graphql-armor (query limits) and the transport get it here.
import { GraphQLError, type ASTVisitor, type ExecutionResult, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const ERROR_CODES = {
  BAD_USER_INPUT: 'an argument or variable is invalid (names the field)',
  GRAPHQL_PARSE_FAILED: 'the document is not GraphQL',
  GRAPHQL_VALIDATION_FAILED: 'the document does not fit the schema',
  QUERY_TOO_COMPLEX: 'a query limit was passed (depth, aliases, cost, tokens, directives)',
  NOT_FOUND: 'no such memory, turn, session or entity in this space',
  FORBIDDEN: 'the token may not do this',
  UNAUTHENTICATED: 'missing, wrong or revoked token',
  FAILED_PRECONDITION: 'the operation needs something not configured',
  PAYLOAD_TOO_LARGE: 'the request body is over the limit',
  INTERNAL_SERVER_ERROR: 'a bug: the message is masked, the log has it',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The code an uncoded error deserves, by where it came from. */
function codeFor(error: GraphQLError): ErrorCode {
  const message = error.message;
  // graphql-armor reports its limits as syntax errors or validation errors naming the limit.
  if (/(limit of \d+ exceeded|Max (depth|aliases|directives|tokens)|Token limit|Query Cost limit)/i.test(message)) return 'QUERY_TOO_COMPLEX';
  if (message.startsWith('Syntax Error')) return 'GRAPHQL_PARSE_FAILED';
  if (/^Variable "\$/.test(message)) return 'BAD_USER_INPUT';
  if (!error.originalError) return 'GRAPHQL_VALIDATION_FAILED';
  return 'INTERNAL_SERVER_ERROR';
}

export function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: codeFor(error) },
  });
}

/** The same result with a code on each error (results of one operation; streams are left to their transports). */
export function codedResult<T extends ExecutionResult>(result: T): T {
  if (!result.errors?.length || result.errors.every((e) => typeof e.extensions?.code === 'string')) return result;
  return { ...result, errors: result.errors.map((e) => withCode(e)) };
}

/**
 * Aliases, `__typename` ones included: graphql-armor leaves those out, so 10,000 aliased
 * `__typename`s passed its limit. One error for the document, with the limit in it.
 */
export function maxAliasesRule(limit: number) {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    return {
      Field(node) {
        if (!node.alias) return;
        count++;
        if (count === limit + 1) {
          context.reportError(new GraphQLError(`Aliases limit of ${limit} exceeded (every aliased field counts, __typename too)`, { nodes: [node], extensions: { code: 'QUERY_TOO_COMPLEX' } }));
        }
      },
    };
  };
}

/**
 * Codes on every GraphQL error over HTTP; a GET whose `variables` or `extensions` is not a JSON
 * object is BAD_USER_INPUT (yoga answered 500); the alias rule above.
 */
/** graphql-js parses nested values recursively: a list nested thousands deep overflows the stack. */
export const tooDeep = () => new GraphQLError('The document is nested too deeply', { extensions: { code: 'QUERY_TOO_COMPLEX' } });

/** A parser that turns a stack overflow into QUERY_TOO_COMPLEX (HTTP and WebSocket use it). */
export function safeParse<A extends unknown[], R>(parse: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return parse(...args);
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep();
      throw error;
    }
  };
}

export function errorCodes(options: { graphqlPath: string; maxAliases: number; reply: (status: number, code: ErrorCode, message: string) => Response }): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== options.graphqlPath || request.method !== 'GET') return;
      for (const key of ['variables', 'extensions']) {
        const raw = url.searchParams.get(key);
        if (raw === null || raw === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          return endResponse(options.reply(400, 'BAD_USER_INPUT', `${key}: not valid JSON`));
        }
        if (value !== null && (typeof value !== 'object' || Array.isArray(value))) return endResponse(options.reply(400, 'BAD_USER_INPUT', `${key}: must be a JSON object`));
      }
    },
    onParse({ parseFn, setParseFn }) {
      setParseFn(safeParse(parseFn));
    },
    onValidate({ addValidationRule, validateFn, setValidationFn }) {
      addValidationRule(maxAliasesRule(options.maxAliases));
      // Validation walks the document recursively too (and armor's cost rule throws its errors).
      setValidationFn((...args) => {
        try {
          return validateFn(...args);
        } catch (error) {
          if (error instanceof RangeError) return [tooDeep()];
          if (error instanceof GraphQLError) return [withCode(error)];
          throw error;
        }
      });
    },
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map((r) => codedResult(r)));
      else if (!(Symbol.asyncIterator in (result as object))) setResult(codedResult(result as ExecutionResult));
    },
  };
}
