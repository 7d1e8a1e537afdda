// Error codes over HTTP: the code of every GraphQL error (server/graphql/errors.ts), malformed GET
// parameters, documents nested too deep, and an alias limit that counts __typename too.
import { GraphQLError, type ASTVisitor, type ExecutionResult, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { codedResult, withCode, type ApiErrorCode } from '../graphql/errors.ts';

export { codedResult, ERROR_CODES, withCode } from '../graphql/errors.ts';

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
          context.reportError(
            new GraphQLError(`Aliases limit of ${limit} exceeded (every aliased field counts, __typename too)`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_COMPLEX' },
            }),
          );
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
export const tooDeep = () =>
  new GraphQLError('The document is nested too deeply', { extensions: { code: 'QUERY_TOO_COMPLEX' } });

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

export function errorCodes(options: {
  graphqlPath: string;
  maxAliases: number;
  reply: (status: number, code: ApiErrorCode, message: string) => Response;
}): Plugin {
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
        if (value !== null && (typeof value !== 'object' || Array.isArray(value)))
          return endResponse(options.reply(400, 'BAD_USER_INPUT', `${key}: must be a JSON object`));
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
