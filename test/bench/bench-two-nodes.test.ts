// bench:scale's two-node line (Postgres): the cores a given multiple of one node's reads would
// keep busy, from the CPU per request one node's run measured. The run itself needs a Postgres
// server (.ci/run starts one); this checks the arithmetic the verdict rests on.
import { describe, expect, it } from 'vitest';
import { coresFor } from '../../bench/scale-postgres.ts';

const one = { requestsPerSecond: 300, cores: { busy: 1.6, nodes: 0.96, clients: 0.12 } };

describe('bench:scale two nodes: cores needed', () => {
  it('splits the CPU per request between the node, Postgres (the rest) and the clients', () => {
    expect(coresFor(1.7, one)).toEqual({ nodeMs: 3.2, postgresMs: 1.73, clientMs: 0.4, cores: 2.7 });
  });

  it('at the measured rate needs exactly the cores that were busy', () => {
    expect(coresFor(1, one).cores).toBe(1.6);
    expect(coresFor(2, one).cores).toBe(3.2);
  });

  it('a run with no request answered does not divide by zero', () => {
    const none = coresFor(1.7, { requestsPerSecond: 0, cores: { busy: 0.5, nodes: 0.1, clients: 0.1 } });
    expect(Number.isFinite(none.nodeMs) && Number.isFinite(none.cores)).toBe(true);
  });
});
