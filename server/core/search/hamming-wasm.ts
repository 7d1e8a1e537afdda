// The Hamming scan of large indexes in WebAssembly SIMD: i8x16.popcnt counts 128 bits in one
// instruction, where JS needs a dozen operations per 32 (SWAR). Over 100k 256-d codes: ~0.5 ms
// against ~1.5 ms for the fastest JS loop (2-core machine), and search does two scans (turns and
// memories). The module is assembled here from its opcodes, so no toolchain or binary file is
// involved; it is this function (WAT), and test/search-vector-index.test.ts checks its distances
// against a count in JS:
//
//   (func (export "scan") (param $codes i32) (param $query i32) (param $n i32) (param $vecs i32)
//                         (param $dist i32) (param $hist i32)
//     (local $i i32) (local $q i32) (local $p i32) (local $d i32) (local $acc v128) (local $qend i32)
//     $p = $codes; $qend = $query + $vecs * 16
//     for ($i = 0; $i < $n; $i++) {                ;; one row: $vecs blocks of 128 bits
//       $acc = 0; $q = $query
//       do { $acc = i8x16.add($acc, i8x16.popcnt(v128.xor(load $p, load $q))); $p += 16; $q += 16 }
//       while ($q < $qend)
//       $acc = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u($acc))
//       $d = lane0 + lane1 + lane2 + lane3
//       store16 ($dist + 2 * $i) $d; $hist[$d] += 1
//     })
//
// Byte lanes add up to 8 per block, so a row of up to 31 blocks (3,968 bits) cannot overflow.
// Memory is imported: each large index owns one (vector-index.ts lays it out).

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    const byte = n & 0x7f;
    n >>>= 7;
    out.push(n ? byte | 0x80 : byte);
  } while (n);
  return out;
};
const vec = (items: number[][]) => [...leb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];

const I32 = 0x7f;
const V128 = 0x7b;
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
/** i32.const for 0..63 (one-byte signed LEB128). */
const int = (n: number) => [0x41, n];
const add = 0x6a;
const shl = 0x74;
const simd = (op: number, ...immediates: number[]) => [0xfd, ...leb(op), ...immediates];
const load128 = simd(0x00, 4, 0); // v128.load, align 2^4, offset 0
const [codes, query, n, vecs, dist, hist, i, q, p, d, acc, qend] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

const body = [
  ...[3, 4, I32, 1, V128, 1, I32], // locals: $i $q $p $d, $acc, $qend
  ...get(codes), ...set(p),
  ...get(query), ...get(vecs), ...int(4), shl, add, ...set(qend),
  ...int(0), ...set(i),
  0x02, 0x40, 0x03, 0x40, // block, loop (rows)
  ...get(i), ...get(n), 0x4f, 0x0d, 1, // i >= n (ge_u): break
  ...simd(0x0c, ...new Array<number>(16).fill(0)), ...set(acc), // v128.const 0
  ...get(query), ...set(q),
  0x03, 0x40, // loop (blocks of the row)
  ...get(acc), ...get(p), ...load128, ...get(q), ...load128,
  ...simd(0x51), ...simd(0x62), ...simd(0x6e), ...set(acc), // v128.xor, i8x16.popcnt, i8x16.add
  ...get(p), ...int(16), add, ...set(p),
  ...get(q), ...int(16), add, ...tee(q), ...get(qend), 0x49, 0x0d, 0, // q < qend (lt_u): again
  0x0b,
  ...get(acc), ...simd(0x7d), ...simd(0x7f), ...set(acc), // i16x8 then i32x4 pairwise sums (unsigned)
  ...get(acc), ...simd(0x1b, 0), ...get(acc), ...simd(0x1b, 1), add, ...get(acc), ...simd(0x1b, 2), add, ...get(acc), ...simd(0x1b, 3), add, ...set(d),
  ...get(dist), ...get(i), ...int(1), shl, add, ...get(d), 0x3b, 1, 0, // i32.store16
  ...get(hist), ...get(d), ...int(2), shl, add, ...tee(d), ...get(d), 0x28, 2, 0, ...int(1), add, 0x36, 2, 0, // hist[d]++
  ...get(i), ...int(1), add, ...set(i),
  0x0c, 0, // next row
  0x0b, 0x0b, 0x0b,
];

const BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), 0]])), // (i32 x6) -> ()
  ...section(2, vec([[3, ...[0x65, 0x6e, 0x76], 1, 0x6d, 0x02, 0x00, 0x01]])), // import env.m: memory, min 1 page
  ...section(3, vec([[0]])),
  ...section(7, vec([[4, ...[0x73, 0x63, 0x61, 0x6e], 0x00, 0]])), // export "scan"
  ...section(10, vec([[...leb(body.length), ...body]])),
]);

/** Rows of 128-bit blocks the module handles: more would overflow its byte lanes. */
export const MAX_WASM_BLOCKS = 31;

export type WasmScan = (codes: number, query: number, n: number, blocks: number, dist: number, hist: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** The scan bound to `memory`, or null where WebAssembly SIMD is missing (the JS scan is used then). */
export function wasmScanner(memory: WebAssembly.Memory): WasmScan | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(BYTES);
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { m: memory } }).exports.scan as WasmScan;
}
