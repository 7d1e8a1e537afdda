// Subscription streams built from the change feed with operators (filter, map), which end the
// moment a client unsubscribes; an async generator waiting for its next event would keep its
// listener until that event came.
import { Repeater } from '@graphql-yoga/subscription';

export { filter, map, pipe } from '@graphql-yoga/subscription';

/**
 * The stream `open` builds; when `open` throws (a FORBIDDEN space), a stream whose first read
 * fails with that error, as a generator's would (graphql-ws then sends it as an `error` message).
 */
export function stream<T>(open: () => AsyncIterable<T>): AsyncIterable<T> {
  try {
    return open();
  } catch (error) {
    return new Repeater<T>((_push, stop) => {
      stop(error);
    });
  }
}
