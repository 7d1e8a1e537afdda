// The size limit of a GraphQL request's body. Yoga's own (maxRequestBodySize) streams every body
// through a counting TransformStream, which costs each request a stream pipeline, an
// AbortController and a DOMException: `{ __typename }` took 0.87 ms of server CPU with it and 0.28
// without (bench/load-server.ts's server, 4 clients). With a Content-Length, Node's HTTP parser
// never hands over more bytes than the header says (and refuses a request that also has
// Transfer-Encoding), so the header is checked alone; only a body without one (chunked) is
// counted as it streams.
import { GraphQLError } from 'graphql';
import type { FetchAPI, Plugin } from 'graphql-yoga';

const CONTENT_LENGTH = /^\d+$/;
// The codes of the API's table (server/graphql/errors.ts), as REST answers them (yoga's were REQUEST_ENTITY_TOO_LARGE and BAD_REQUEST).
const tooLarge = (limit: number) =>
  new GraphQLError(`request body: larger than ${limit} bytes`, {
    extensions: { http: { status: 413 }, code: 'PAYLOAD_TOO_LARGE' },
  });
const badLength = () =>
  new GraphQLError('Content-Length: not a byte count', {
    extensions: { http: { status: 400 }, code: 'BAD_USER_INPUT' },
  });

/** `request` with its body cut off by a 413 once more than `limit` bytes have streamed in. */
function counted(request: Request, limit: number, fetchAPI: FetchAPI): Request {
  // Node's own ReadableStream pipes only into its own TransformStream (graphql-yoga#4583).
  const Transform = request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  let bytes = 0;
  const body = request.body!.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body,
    duplex: 'half',
  } as RequestInit);
}

export function bodyLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length');
      if (length !== null) {
        if (!CONTENT_LENGTH.test(length)) throw badLength();
        if (Number(length) > limit) throw tooLarge(limit);
        return;
      }
      if (!requestParser || !request.body) return;
      setRequestParser((req) => requestParser(counted(req, limit, fetchAPI)));
    },
  };
}
