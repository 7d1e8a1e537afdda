// The Hamming scan of large indexes in WebAssembly: i64.popcnt counts 64 bits in one machine
// instruction (x86-64 POPCNT, arm64 CNT), where JS needs a dozen operations per 32 (SWAR). Over
// 100k 256-d codes: ~0.7 ms against ~1.1 ms for the same loop in SIMD (i8x16.popcnt, which x86-64
// has no instruction for: V8 emulates it with table lookups, and a row's 16 byte counts then
// need two widening adds and four lane reads) and ~1.5 ms for the fastest JS loop (2-core
// machine); search does two scans (turns and memories). The module is assembled here from its
// opcodes, so no toolchain or binary file is involved; it is this function (WAT), and
// test/search/search-vector-index.test.ts checks its distances against a count in JS:
//
//   (func (export "scan") (param $codes i32) (param $query i32) (param $n i32) (param $vecs i32)
//                         (param $dist i32) (param $hist i32)
//     (local $i i32) (local $q i32) (local $p i32) (local $d i32) (local $qend i32) (local $acc i64)
//     $p = $codes; $qend = $query + $vecs * 16
//     for ($i = 0; $i < $n; $i++) {                ;; one row: $vecs blocks of 128 bits
//       $acc = 0; $q = $query
//       do { $acc += popcnt(load64 $p ^ load64 $q) + popcnt(load64 ($p + 8) ^ load64 ($q + 8))
//            $p += 16; $q += 16 }
//       while ($q < $qend)
//       $d = wrap($acc)
//       store16 ($dist + 2 * $i) $d; $hist[$d] += 1
//     })
//
// and then the rows under a cut-off distance, in order of distance (a counting sort whose start
// offsets the caller wrote at $starts), as slot numbers, in one pass over the distances:
//
//   (func (export "collect") (param $dist i32) (param $n i32) (param $cut i32) (param $atCut i32)
//                            (param $starts i32) (param $out i32)
//     for ($i = 0; $i < $n; $i++) {
//       $d = load16_u ($dist + 2 * $i)
//       if ($d > $cut) continue
//       if ($d == $cut) { if ($atCut == 0) continue; $atCut -= 1 }
//       $s = $starts + 4 * $d; store32 ($out + 4 * load32 $s) $i; store32 $s (load32 $s + 1)
//     })
//
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
const I64 = 0x7e;
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
/** i32.const for 0..63 (one-byte signed LEB128). */
const int = (n: number) => [0x41, n];
const add = 0x6a;
const shl = 0x74;
/** i64.load, align 2^3, at a constant offset from the address on the stack. */
const load64 = (offset: number) => [0x29, 3, ...leb(offset)];
const [xor64, popcnt64, add64, wrap] = [0x85, 0x7b, 0x7c, 0xa7];
const [codes, query, n, vecs, dist, hist, i, q, p, d, qend, acc] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/** popcnt(load64 ($p + offset) ^ load64 ($q + offset)), added to the i64 on the stack. */
const addDistance = (offset: number) => [
  ...get(p),
  ...load64(offset),
  ...get(q),
  ...load64(offset),
  xor64,
  popcnt64,
  add64,
];

const body = [
  ...[2, 5, I32, 1, I64], // locals: $i $q $p $d $qend, $acc
  ...get(codes),
  ...set(p),
  ...get(query),
  ...get(vecs),
  ...int(4),
  shl,
  add,
  ...set(qend),
  ...int(0),
  ...set(i),
  0x02,
  0x40,
  0x03,
  0x40, // block, loop (rows)
  ...get(i),
  ...get(n),
  0x4f,
  0x0d,
  1, // i >= n (ge_u): break
  0x42,
  0,
  ...set(acc), // i64.const 0
  ...get(query),
  ...set(q),
  0x03,
  0x40, // loop (blocks of the row)
  ...get(acc),
  ...addDistance(0),
  ...addDistance(8),
  ...set(acc),
  ...get(p),
  ...int(16),
  add,
  ...set(p),
  ...get(q),
  ...int(16),
  add,
  ...tee(q),
  ...get(qend),
  0x49,
  0x0d,
  0, // q < qend (lt_u): again
  0x0b,
  ...get(acc),
  wrap,
  ...set(d),
  ...get(dist),
  ...get(i),
  ...int(1),
  shl,
  add,
  ...get(d),
  0x3b,
  1,
  0, // i32.store16
  ...get(hist),
  ...get(d),
  ...int(2),
  shl,
  add,
  ...tee(d),
  ...get(d),
  0x28,
  2,
  0,
  ...int(1),
  add,
  0x36,
  2,
  0, // hist[d]++
  ...get(i),
  ...int(1),
  add,
  ...set(i),
  0x0c,
  0, // next row
  0x0b,
  0x0b,
  0x0b,
];

const [cdist, cn, cut, atCut, starts, out, ci, cd, cs] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const collectBody = [
  ...[1, 3, I32], // locals: $i $d $s
  ...int(0),
  ...set(ci),
  0x02,
  0x40,
  0x03,
  0x40, // block, loop (rows)
  ...get(ci),
  ...get(cn),
  0x4f,
  0x0d,
  1, // i >= n (ge_u): break
  0x02,
  0x40, // block (a row left out breaks here)
  ...get(cdist),
  ...get(ci),
  ...int(1),
  shl,
  add,
  0x2f,
  1,
  0,
  ...tee(cd), // i32.load16_u
  ...get(cut),
  0x4b,
  0x0d,
  0, // d > cut (gt_u): left out
  ...get(cd),
  ...get(cut),
  0x46,
  0x04,
  0x40, // if d == cut
  ...get(atCut),
  0x45,
  0x0d,
  1, // none left at the cut: left out
  ...get(atCut),
  ...int(1),
  0x6b,
  ...set(atCut),
  0x0b,
  ...get(starts),
  ...get(cd),
  ...int(2),
  shl,
  add,
  ...tee(cs),
  0x28,
  2,
  0,
  ...int(2),
  shl,
  ...get(out),
  add,
  ...get(ci),
  0x36,
  2,
  0, // out[starts[d]] = i
  ...get(cs),
  ...get(cs),
  0x28,
  2,
  0,
  ...int(1),
  add,
  0x36,
  2,
  0, // starts[d] += 1
  0x0b,
  ...get(ci),
  ...int(1),
  add,
  ...set(ci),
  0x0c,
  0, // next row
  0x0b,
  0x0b,
  0x0b,
];

const name = (text: string) => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
const BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), 0]])), // (i32 x6) -> ()
  ...section(2, vec([[3, ...[0x65, 0x6e, 0x76], 1, 0x6d, 0x02, 0x00, 0x01]])), // import env.m: memory, min 1 page
  ...section(3, vec([[0], [0]])), // both of that type
  ...section(
    7,
    vec([
      [...name('scan'), 0x00, 0],
      [...name('collect'), 0x00, 1],
    ]),
  ),
  ...section(
    10,
    vec([
      [...leb(body.length), ...body],
      [...leb(collectBody.length), ...collectBody],
    ]),
  ),
]);

/** Rows of 128-bit blocks the layout has room for: the histogram (vector-index.ts) holds distances up to 3,968 bits. */
export const MAX_WASM_BLOCKS = 31;

export type WasmScan = {
  scan(codes: number, query: number, n: number, blocks: number, dist: number, hist: number): void;
  collect(dist: number, n: number, cut: number, atCut: number, starts: number, out: number): void;
};

let compiled: WebAssembly.Module | null | undefined;

/** The functions bound to `memory`, or null where WebAssembly is missing (the JS scan is used then). */
export function wasmScanner(memory: WebAssembly.Memory): WasmScan | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(BYTES);
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { m: memory } }).exports as unknown as WasmScan;
}
