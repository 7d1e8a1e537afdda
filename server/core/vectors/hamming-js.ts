// The Hamming scan in JS, for indexes too small for WebAssembly memory of their own (and where
// WebAssembly is missing): each row's distance to the query into `dist`, counted in
// `histogram`. Popcount is SWAR (pairs, nibbles, then the bytes summed by one multiply). Four
// words a step, for codes of a multiple of 128 bits (256-d, 1536-d, 100-d padded), measured
// ~25% faster than one at a time (100k 256-d codes: ~2.0 against ~2.6 ms, loaded 2-core machine).

/** Four words' counts folded at once: nibble sums of two words fit a byte (<= 16), four's (<= 32) sum to <= 128. */
const fold4 = (a: number, b: number, c: number, e: number) => {
  a -= (a >>> 1) & 0x55555555;
  b -= (b >>> 1) & 0x55555555;
  c -= (c >>> 1) & 0x55555555;
  e -= (e >>> 1) & 0x55555555;
  a = (a & 0x33333333) + ((a >>> 2) & 0x33333333);
  b = (b & 0x33333333) + ((b >>> 2) & 0x33333333);
  c = (c & 0x33333333) + ((c >>> 2) & 0x33333333);
  e = (e & 0x33333333) + ((e >>> 2) & 0x33333333);
  a = ((a + (a >>> 4)) & 0x0f0f0f0f) + ((b + (b >>> 4)) & 0x0f0f0f0f);
  c = ((c + (c >>> 4)) & 0x0f0f0f0f) + ((e + (e >>> 4)) & 0x0f0f0f0f);
  return Math.imul(a + c, 0x01010101) >>> 24;
};

/** The Hamming distance of each of `rows.size` codes to `query` into `into.dist`, counted in `into.histogram`. */
export function scanJs(
  rows: { codes: Uint32Array; size: number; words: number },
  query: Uint32Array,
  into: { dist: Uint16Array; histogram: Uint32Array },
) {
  const { codes, size, words } = rows;
  const { dist, histogram } = into;
  if (words % 4 === 0) {
    for (let i = 0, base = 0; i < size; i++, base += words) {
      let d = 0;
      for (let w = 0, o = base; w < words; w += 4, o += 4)
        d += fold4(
          codes[o]! ^ query[w]!,
          codes[o + 1]! ^ query[w + 1]!,
          codes[o + 2]! ^ query[w + 2]!,
          codes[o + 3]! ^ query[w + 3]!,
        );
      dist[i] = d;
      histogram[d]!++;
    }
    return;
  }
  for (let i = 0, base = 0; i < size; i++, base += words) {
    let d = 0;
    for (let w = 0; w < words; w++) {
      let x = codes[base + w]! ^ query[w]!;
      x -= (x >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      d += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    dist[i] = d;
    histogram[d]!++;
  }
}
