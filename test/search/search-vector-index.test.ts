// KNN over plain vector tables: the in-memory sign-bit index (Hamming scan) and the exact rerank
// (SQL on SQLite and with pgvector, JavaScript on a Postgres without it), on real stores. Its
// answers against an exact scan, isolation between users, a second connection's writes and
// deletions seen by the first, forget, the memory cap and the centring mean. The move from the
// vec0 tables of earlier releases is SQLite's (search-sqlite.test.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forget } from '../../server/core/memory/forget.ts';
import { scanJs } from '../../server/core/vectors/hamming-js.ts';
import { wasmScanner } from '../../server/core/vectors/hamming-wasm.ts';
import { hammingNearest, setIndexBudget, signBits } from '../../server/core/vectors/vector-index.ts';
import { meanMetaKey, MEAN_AFTER } from '../../server/core/vectors/vector-rows.ts';
import { countVectors, initVectors, knnIds, putVectors, resetVectors } from '../../server/core/vectors/vectors.ts';
import type { Space } from '../../server/core/kernel/space.ts';
import type { Store } from '../../server/core/kernel/store.ts';
import { forgetUser } from '../../server/core/users/users.ts';
import { write } from '../../server/core/kernel/store.ts';
import { closeStore } from '../../server/storage/sqlite/open.ts';
import { openTestStore, testBackend } from '../helpers/store.ts';

const stores: Store[] = [];
afterEach(async () => {
  setIndexBudget(64 * 2 ** 20);
  for (const store of stores.splice(0)) await closeStore(store);
});

const newPath = () => join(mkdtempSync(join(tmpdir(), 'sm-knn-')), 'db.sqlite');
async function open(path: string, dimensions: number) {
  const store = await openTestStore({
    path,
    env: {},
    config: { extractor: { mode: 'heuristic' }, ner: { enabled: false } },
  });
  stores.push(store);
  expect((await initVectors(store, { dimensions, model: 'test' })).ready).toBe(true);
  return store;
}
const space = (userId: string): Space => ({ userId, agentId: null });

/** Deterministic PRNG (mulberry32) and normal samples from it. */
function rng(seed: number) {
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, gauss: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()) };
}

/** Unit vectors around `topics` random centres, all shifted by `offset` (a common direction). */
function vectors(seed: number, dimensions: number, topics = 20, offset = 0) {
  const random = rng(seed);
  const shift = Float32Array.from({ length: dimensions }, () => random.gauss() * offset);
  const centres = Array.from({ length: topics }, () => Float32Array.from({ length: dimensions }, random.gauss));
  return () => {
    const centre = centres[Math.floor(random.next() * topics)]!;
    const v = Float32Array.from(centre, (x, d) => x + random.gauss() + shift[d]!);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
}

/** `n` turns of `userId` (bulk SQL, 500 rows a statement: a vector table row needs its turn), with their ids. */
async function addTurns(store: Store, userId: string, n: number): Promise<number[]> {
  return write(store, async () => {
    await store.sql.run('insert into users (id, created_at) values (?, 0) on conflict do nothing', [userId]);
    await store.sql.run(
      "insert into sessions (user_id, id, first_seen_at, last_seen_at) values (?, 's', 0, 0) on conflict do nothing",
      [userId],
    );
    const ids: number[] = [];
    for (let from = 0; from < n; from += 500) {
      const batch = Array.from({ length: Math.min(500, n - from) }, (_, i) => from + i);
      const text = `insert into turns (user_id, session_id, role, text, at, created_at) values ${batch.map(() => "(?, 's', 'user', ?, 0, 0)").join(', ')} returning id`;
      const rows = await store.sql.values(
        text,
        batch.flatMap((i) => [userId, `turn ${i} of ${userId}`]),
      );
      ids.push(...rows.map((row) => Number(row[0])).sort((a, b) => a - b));
    }
    return ids;
  });
}

const meanOfTurns = (store: Store) =>
  store.sql.pluck<string>('select value from meta where key = ?', [meanMetaKey('turns')]);

async function putAll(store: Store, userId: string, ids: number[], make: () => Float32Array) {
  const rows = ids.map((id) => ({ id, userId, vector: make() }));
  await putVectors(store, 'turns', rows);
  return new Map(rows.map((r) => [r.id, r.vector]));
}

/** The exact answer: every vector of the user by cosine (vectors are unit length: the dot product). */
function exact(stored: Map<number, Float32Array>, query: Float32Array, k: number) {
  const dot = (v: Float32Array) => v.reduce((s, x, d) => s + x * query[d]!, 0);
  return [...stored]
    .map(([id, v]) => ({ id, score: dot(v) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k)
    .map((r) => r.id);
}

/** Differing bits, counted one by one (the slow, obvious way). */
function hamming(a: Uint32Array, b: Uint32Array) {
  let n = 0;
  for (let i = 0; i < a.length; i++) for (let x = (a[i]! ^ b[i]!) >>> 0; x; x = (x & (x - 1)) >>> 0) n++;
  return n;
}

describe('vector KNN', () => {
  it('equals an exact scan when the user has no more vectors than the rerank takes', async () => {
    const store = await open(newPath(), 64);
    const make = vectors(1, 64);
    const stored = await putAll(store, 'alice', await addTurns(store, 'alice', 300), make);
    for (let q = 0; q < 20; q++) {
      const query = make();
      expect(await knnIds(store, space('alice'), { table: 'turns', vector: query, k: 10 })).toEqual(
        exact(stored, query, 10),
      );
    }
  });

  it('counts the same Hamming distances in WebAssembly as in JS, and collects the nearest in order', () => {
    const memory = new WebAssembly.Memory({ initial: 2 });
    const wasm = wasmScanner(memory);
    expect(wasm, 'WebAssembly must be there: large indexes are scanned with it').not.toBeNull();
    const random = rng(9);
    for (const words of [4, 8, 48]) {
      const rows = 300;
      const codes = Uint32Array.from({ length: rows * words }, () => (random.next() * 2 ** 32) >>> 0);
      const query = Uint32Array.from({ length: words }, () => (random.next() * 2 ** 32) >>> 0);
      new Uint32Array(memory.buffer, 0, words).set(query);
      new Uint32Array(memory.buffer, 1024, rows * words).set(codes);
      const histogramAt = 1024 + rows * words * 4;
      const distAt = histogramAt + (words * 32 + 2) * 4;
      new Uint32Array(memory.buffer, histogramAt, words * 32 + 2).fill(0);
      wasm!.scan(1024, 0, rows, words / 4, distAt, histogramAt);
      const dist = new Uint16Array(rows);
      const histogram = new Uint32Array(words * 32 + 2);
      scanJs({ codes, size: rows, words }, query, { dist, histogram });
      expect([...new Uint16Array(memory.buffer, distAt, rows)]).toEqual([...dist]);
      expect([...new Uint32Array(memory.buffer, histogramAt, words * 32 + 2)]).toEqual([...histogram]);
      expect(dist[0]).toBe(hamming(codes.subarray(0, words), query));
      // The 50 nearest: every row under the cut-off distance, and the first rows at it, by distance then slot.
      const m = 50;
      let cut = 0;
      let below = 0;
      while (below + histogram[cut]! < m) below += histogram[cut++]!;
      const starts = new Uint32Array(memory.buffer, histogramAt, cut + 2);
      for (let d = 0, offset = 0; d <= cut; d++) [starts[d], offset] = [offset, offset + histogram[d]!];
      const outAt = (distAt + rows * 2 + 3) & ~3;
      wasm!.collect(distAt, rows, cut, m - below, histogramAt, outAt);
      const expected = [...dist.keys()]
        .filter((slot) => dist[slot]! <= cut)
        .sort((a, b) => dist[a]! - dist[b]! || a - b)
        .slice(0, m);
      expect([...new Uint32Array(memory.buffer, outAt, m)]).toEqual(expected);
    }
  });

  it('picks the m nearest codes by Hamming distance at every code width, and reranks them exactly', async () => {
    // 48-d: scanned in JS a word at a time. 128-d and 256-d: in JS up to 4,096 rows, then moved
    // to WebAssembly memory by a catch-up, which a later one grows. The widths are the scanner's
    // business, the same on every backend: on Postgres (whose every vector PGlite parses slowly,
    // in time with its width) 128-d alone, which takes both paths, checks what the storage does.
    for (const dimensions of testBackend === 'sqlite' ? [48, 128, 256] : [128]) {
      const store = await open(newPath(), dimensions);
      const make = vectors(dimensions, dimensions);
      const ids = await addTurns(store, 'alice', 9000);
      const stored = new Map<number, Float32Array>();
      for (const [from, to] of [
        [0, 3000],
        [3000, 6000],
        [6000, 9000],
      ] as const) {
        for (const [id, v] of await putAll(store, 'alice', ids.slice(from, to), make)) stored.set(id, v);
        const mean = (await meanOfTurns(store))!;
        const meanValues = Float32Array.from(JSON.parse(mean) as number[]);
        const codes = new Map([...stored].map(([id, v]) => [id, signBits(v, meanValues)]));
        let recall = 0;
        for (let q = 0; q < 5; q++) {
          const query = make();
          const code = signBits(query, meanValues);
          const picked = await hammingNearest(store, {
            table: 'turns',
            userId: 'alice',
            query: code,
            mean: mean,
            m: 100,
          });
          const best = [...codes.values()].map((c) => hamming(c, code)).sort((a, b) => a - b);
          expect(
            picked.map((id) => hamming(codes.get(id)!, code)),
            `${dimensions}-d, ${to} rows`,
          ).toEqual(best.slice(0, 100));
          // Many more than the memory's slack past the distances holds: the room for them is grown.
          if (q === 0 && to === 9000) {
            const many = await hammingNearest(store, {
              table: 'turns',
              userId: 'alice',
              query: code,
              mean: mean,
              m: 6000,
            });
            expect(
              many.map((id) => hamming(codes.get(id)!, code)),
              `${dimensions}-d, 6,000 of ${to}`,
            ).toEqual(best.slice(0, 6000));
          }
          const found = await knnIds(store, space('alice'), { table: 'turns', vector: query, k: 10 });
          const truth = exact(stored, query, 10);
          // In cosine order, and the exact neighbours (nearly all: the codes only preselect).
          const scores = found.map((id) => stored.get(id)!.reduce((s, x, d) => s + x * query[d]!, 0));
          expect([...scores].sort((a, b) => b - a)).toEqual(scores);
          recall += found.filter((id) => truth.includes(id)).length / 10;
        }
        expect(recall / 5, `${dimensions}-d, ${to} rows`).toBeGreaterThanOrEqual(0.9);
      }
    }
  }, 600_000); // 27,000 vectors on SQLite, 9,000 128-d on Postgres: PGlite (WebAssembly) parses each one's pgvector text, slowly

  it('centres the codes once a table holds enough vectors, so a common direction does not blur them', async () => {
    const store = await open(newPath(), 64);
    // Every vector shares a large offset: signs around zero are nearly the same for all of them.
    const make = vectors(5, 64, 40, 3);
    const ids = await addTurns(store, 'alice', 3000);
    let stored = await putAll(store, 'alice', ids.slice(0, MEAN_AFTER - 1), make);
    expect(await meanOfTurns(store)).toBeUndefined();
    stored = new Map([...stored, ...(await putAll(store, 'alice', ids.slice(MEAN_AFTER - 1), make))]);
    expect(await meanOfTurns(store)).toBeDefined();
    let recall = 0;
    for (let q = 0; q < 20; q++) {
      const query = make();
      const truth = exact(stored, query, 10);
      recall +=
        (await knnIds(store, space('alice'), { table: 'turns', vector: query, k: 10 })).filter((id) =>
          truth.includes(id),
        ).length / 10;
    }
    expect(recall / 20).toBeGreaterThanOrEqual(0.9);
  });

  it("never returns another user's vectors, however near", async () => {
    const store = await open(newPath(), 32);
    const make = vectors(2, 32);
    const alice = await putAll(store, 'alice', await addTurns(store, 'alice', 600), make);
    const bob = await putAll(store, 'bob', await addTurns(store, 'bob', 50), make);
    for (const [id, vector] of [...alice].slice(0, 20)) {
      const found = await knnIds(store, space('bob'), { table: 'turns', vector: vector, k: 400 });
      expect(found).not.toContain(id);
      expect(found.every((f) => bob.has(f))).toBe(true);
      expect(await knnIds(store, space('alice'), { table: 'turns', vector: vector, k: 1 })).toEqual([id]);
    }
    expect(await knnIds(store, space('carol'), { table: 'turns', vector: make(), k: 10 })).toEqual([]);
  });

  it('sees rows another connection writes, replaces and deletes, through the index it already built', async () => {
    const path = newPath();
    const server = await open(path, 32);
    const make = vectors(3, 32);
    const stored = await putAll(server, 'alice', await addTurns(server, 'alice', 800), make);
    const probe = make();
    expect(await knnIds(server, space('alice'), { table: 'turns', vector: probe, k: 10 })).toEqual(
      exact(stored, probe, 10),
    );

    // The CLI, on the same file (PGlite is one connection in one process: the same store writes
    // past its own index there): a new turn whose vector is the probe itself, and a replaced one.
    const cli = testBackend === 'pglite' ? server : await open(path, 32);
    const [fresh] = await addTurns(cli, 'alice', 1);
    await putVectors(cli, 'turns', [{ id: fresh!, userId: 'alice', vector: probe }]);
    const [replaced] = exact(stored, make(), 1);
    await putVectors(cli, 'turns', [
      { id: replaced!, userId: 'alice', vector: probe.map((x, d) => (d === 0 ? x + 0.01 : x)) },
    ]);
    expect(await knnIds(server, space('alice'), { table: 'turns', vector: probe, k: 2 })).toEqual([fresh, replaced]);

    // Deleted by the other connection (the row goes with its turn): never returned again.
    await cli.sql.run('delete from turns where id = ?', [fresh!]);
    expect(await knnIds(server, space('alice'), { table: 'turns', vector: probe, k: 800 })).not.toContain(fresh);
    expect(await knnIds(server, space('alice'), { table: 'turns', vector: probe, k: 1 })).toEqual([replaced]);

    // Most rows gone elsewhere: the index notices garbage and rebuilds; answers stay exact.
    const left = [...stored.keys()].filter((id) => id % 5 === 0 && id !== replaced);
    await cli.sql.run(`delete from turns where user_id = 'alice' and id not in (select value from sm_ids(?))`, [
      JSON.stringify([...left, replaced]),
    ]);
    for (let q = 0; q < 5; q++) {
      const query = make();
      const remaining = new Map(left.map((id) => [id, stored.get(id)!] as const));
      remaining.set(
        replaced!,
        probe.map((x, d) => (d === 0 ? x + 0.01 : x)),
      );
      expect(await knnIds(server, space('alice'), { table: 'turns', vector: query, k: 10 })).toEqual(
        exact(remaining, query, 10),
      );
    }
  });

  it('forget and forgetUser take the vectors, from the table and from the answers', async () => {
    const store = await open(newPath(), 16);
    const make = vectors(4, 16);
    const ids = await addTurns(store, 'alice', 500);
    const stored = await putAll(store, 'alice', ids, make);
    await putAll(store, 'bob', await addTurns(store, 'bob', 10), make);
    const target = stored.get(ids[7]!)!;
    expect(await knnIds(store, space('alice'), { table: 'turns', vector: target, k: 1 })).toEqual([ids[7]]);
    expect((await forget(store, space('alice'), { text: 'turn 7 of alice' })).turnIds).toEqual([ids[7]]);
    expect(await knnIds(store, space('alice'), { table: 'turns', vector: target, k: 500 })).not.toContain(ids[7]);
    // Not even among the candidates: its bits are cleared from this process's index at once.
    expect(
      await hammingNearest(store, { table: 'turns', userId: 'alice', query: signBits(target), mean: '', m: 400 }),
    ).not.toContain(ids[7]);
    expect(await countVectors(store, 'turns')).toBe(509);

    expect((await forgetUser(store, { userId: 'alice' })).vectors).toBe(499);
    expect(await knnIds(store, space('alice'), { table: 'turns', vector: target, k: 10 })).toEqual([]);
    expect(await knnIds(store, space('bob'), { table: 'turns', vector: target, k: 10 })).toHaveLength(10);
  });

  it("answers the same under a memory cap that evicts other users' indexes", async () => {
    const store = await open(newPath(), 64);
    const make = vectors(6, 64);
    const users = ['u1', 'u2', 'u3'];
    const stored = new Map<string, Map<number, Float32Array>>();
    for (const u of users) stored.set(u, await putAll(store, u, await addTurns(store, u, 700), make));
    // Room for about one user's index (700 x (8 bytes of bits + 8 of id)).
    setIndexBudget(12_000);
    for (let round = 0; round < 3; round++) {
      for (const u of users) {
        const query = make();
        const found = await knnIds(store, space(u), { table: 'turns', vector: query, k: 5 });
        expect(found.every((id) => stored.get(u)!.has(id))).toBe(true);
        expect(found[0]).toBe(exact(stored.get(u)!, query, 1)[0]);
      }
    }
  });

  it('reembed --reset empties the tables and the centring mean', async () => {
    const store = await open(newPath(), 8);
    await putAll(store, 'alice', await addTurns(store, 'alice', MEAN_AFTER), vectors(7, 8));
    expect(await meanOfTurns(store)).toBeDefined();
    await resetVectors(store, { dimensions: 12, model: 'other' });
    expect(await countVectors(store, 'turns')).toBe(0);
    expect(await meanOfTurns(store)).toBeUndefined();
    expect(await knnIds(store, space('alice'), { table: 'turns', vector: vectors(8, 12)(), k: 5 })).toEqual([]);
  });
});
