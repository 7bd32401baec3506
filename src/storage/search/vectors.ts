/**
 * Vectors for search by meaning, held in memory per owner and model: int8 codes with one float
 * scale per vector (scale = max|x| / 127, code = round(x / scale)), a quarter of the bytes of
 * float32 both in the database and here.
 *
 * What "exact" means here: the stored vector IS the dequantized one (codes × scale); nothing
 * finer is kept. `search` answers exactly the top k by dot product of the float query with those
 * stored vectors, never an approximation of that ranking:
 * 1. every vector is scored by integers (the query quantized the same way, codes · codes), fast;
 * 2. the best candidates (4k, at least 64) are re-scored exactly (float query · codes × scale);
 * 3. the error of step 1 for a vector is at most queryScale / 2 × scale × Σ|code| (kept per
 *    vector as `slack`), so any vector whose coarse score plus its slack reaches the k-th exact
 *    score could still belong; those are re-scored too. What is answered is therefore certified.
 * Pure: no database, no I/O. Vectors of two models never meet: an index is for one model, and
 * the cache is keyed by owner and model.
 */

/** Quantizes a float vector: codes in [-127, 127] and the scale that dequantizes them. */
export function quantize(vector: ArrayLike<number>): { codes: Int8Array; scale: number } {
  let max = 0;
  for (let i = 0; i < vector.length; i++) {
    const a = Math.abs(vector[i]!);
    if (a > max) max = a;
  }
  const codes = new Int8Array(vector.length);
  if (max === 0 || !Number.isFinite(max)) return { codes, scale: 0 };
  const scale = max / 127;
  for (let i = 0; i < vector.length; i++) codes[i] = Math.round(vector[i]! / scale);
  return { codes, scale };
}

/** The float vector the codes stand for. */
export function dequantize(codes: Int8Array, scale: number): Float32Array {
  const out = new Float32Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = codes[i]! * scale;
  return out;
}

export interface VectorHit {
  id: string;
  /** Dot product of the query with the stored vector (cosine for unit vectors). */
  score: number;
}

/** Candidates re-scored exactly before the certificate check: 4k, at least this many. */
const MIN_RESCORED = 64;

/**
 * The coarse scan in WebAssembly SIMD: Σ q·c in int32 for every vector, sixteen codes a step
 * (widened to int16, multiplied and summed pairwise by `i32x4.dot_i16x8_s`). Measured about ten
 * times faster than the same loop in JavaScript (bench/vectors.micro.ts). The module is written
 * here byte by byte (a few dozen instructions), so nothing is compiled or downloaded to build it.
 * Its signature: dots(query, codes, count, dimensions, out), all byte offsets into its memory.
 */
function dotsModuleBytes(): Uint8Array {
  const leb = (n: number) => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
  const name = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))];
  const lane = (i: number) => [0x20, 0x08, 0xfd, 0x1b, i];
  const half = (extend: number) => [0x20, 0x09, 0xfd, extend, 0x01, 0x20, 0x0a, 0xfd, extend, 0x01, 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01];
  // locals: 5..7 i32 (6: offset in the vector), 8..10 v128 (8: sums, 9: query, 10: codes)
  const body = [
    0x02, 0x03, 0x7f, 0x03, 0x7b,
    0x03, 0x40, // loop over vectors
    0xfd, 0x0c, ...new Array<number>(16).fill(0), 0x21, 0x08,
    0x41, 0x00, 0x21, 0x06,
    0x03, 0x40, // loop over the dimensions, 16 at a time
    0x20, 0x00, 0x20, 0x06, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0x21, 0x09,
    0x20, 0x01, 0x20, 0x06, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0x21, 0x0a,
    0x20, 0x08, ...half(0x87), ...half(0x88), 0x21, 0x08,
    0x20, 0x06, 0x41, 0x10, 0x6a, 0x22, 0x06, 0x20, 0x03, 0x49, 0x0d, 0x00,
    0x0b,
    0x20, 0x04, ...lane(0), ...lane(1), 0x6a, ...lane(2), 0x6a, ...lane(3), 0x6a, 0x36, 0x02, 0x00,
    0x20, 0x04, 0x41, 0x04, 0x6a, 0x21, 0x04,
    0x20, 0x01, 0x20, 0x03, 0x6a, 0x21, 0x01,
    0x20, 0x02, 0x41, 0x01, 0x6b, 0x22, 0x02, 0x0d, 0x00,
    0x0b,
    0x0b,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [2, ...name('dots'), 0, 0, ...name('mem'), 2, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

/** The little of WebAssembly used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;

let dotsModule: object | null | undefined;
/** The compiled scan, or null where WebAssembly SIMD is unavailable (the JavaScript loop then). */
function simdModule(): object | null {
  if (dotsModule === undefined) {
    try {
      if (!wasm) throw new Error('no WebAssembly');
      dotsModule = new wasm.Module(dotsModuleBytes());
    } catch {
      dotsModule = null;
    }
  }
  return dotsModule ?? null;
}

/** Where the codes start in the scan's memory: the query sits before them, the scores after. */
const CODES_AT = 65_536;
const PAGE = 65_536;

interface Scan {
  memory: WasmMemory;
  dots: (query: number, codes: number, count: number, dimensions: number, out: number) => void;
}

/** One owner's vectors of one model, contiguous, so a scan touches memory in order. */
export class OwnerVectors {
  readonly model: string;
  readonly dimensions: number;
  private codes: Int8Array;
  private scales: Float32Array;
  /** Σ|code| × scale per vector: bounds the coarse score's error (see the file's comment). */
  private slack: Float32Array;
  private ids: string[] = [];
  private slots = new Map<string, number>();

  /** The WebAssembly scan and its memory (the codes live in it), when available for this length. */
  private scan: Scan | undefined;

  constructor(model: string, dimensions: number, initialCapacity = 64) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new Error(`Bad vector length ${dimensions}`);
    this.model = model;
    this.dimensions = dimensions;
    const module = dimensions % 16 === 0 && dimensions <= CODES_AT ? simdModule() : null;
    if (module && wasm) {
      const instance = new wasm.Instance(module, {});
      this.scan = { memory: instance.exports.mem as WasmMemory, dots: instance.exports.dots as Scan['dots'] };
    }
    this.codes = this.codesFor(initialCapacity, new Int8Array(0));
    this.scales = new Float32Array(initialCapacity);
    this.slack = new Float32Array(initialCapacity);
  }

  /** Room for `capacity` vectors' codes, keeping those of `old`. */
  private codesFor(capacity: number, old: Int8Array): Int8Array {
    if (!this.scan) {
      const codes = new Int8Array(capacity * this.dimensions);
      codes.set(old);
      return codes;
    }
    // Codes, then one int32 score per vector; they stay where they are as the memory grows.
    const need = CODES_AT + capacity * this.dimensions + capacity * 4;
    const have = this.scan.memory.buffer.byteLength;
    if (need > have) this.scan.memory.grow(Math.ceil((need - have) / PAGE));
    return new Int8Array(this.scan.memory.buffer, CODES_AT, capacity * this.dimensions);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Bytes held (codes, scales, slack, and a rough count for the ids and the map). */
  get bytes(): number {
    return this.codes.byteLength + this.scales.byteLength + this.slack.byteLength + this.ids.length * 64;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds or replaces the vector of `id`. */
  put(id: string, codes: Int8Array, scale: number): void {
    if (codes.length !== this.dimensions) throw new Error(`A vector of ${codes.length} dimensions cannot join an index of ${this.dimensions}`);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if (slot === this.scales.length) this.grow();
      this.ids.push(id);
      this.slots.set(id, slot);
    }
    this.codes.set(codes, slot * this.dimensions);
    this.scales[slot] = scale;
    let l1 = 0;
    for (let i = 0; i < codes.length; i++) l1 += Math.abs(codes[i]!);
    this.slack[slot] = l1 * scale;
  }

  /** Removes `id` (the last vector moves into its slot). */
  remove(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const d = this.dimensions;
      this.codes.copyWithin(slot * d, last * d, last * d + d);
      this.scales[slot] = this.scales[last]!;
      this.slack[slot] = this.slack[last]!;
      const moved = this.ids[last]!;
      this.ids[slot] = moved;
      this.slots.set(moved, slot);
    }
    this.ids.pop();
    this.slots.delete(id);
    return true;
  }

  private grow(): void {
    const capacity = Math.max(64, this.scales.length * 2);
    const codes = this.codesFor(capacity, this.codes);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    const slack = new Float32Array(capacity);
    slack.set(this.slack);
    this.codes = codes;
    this.scales = scales;
    this.slack = slack;
  }

  /** The exact score of the vector in `slot`: float query · codes × scale. */
  private exact(query: Float32Array, slot: number): number {
    const d = this.dimensions;
    const codes = this.codes;
    let sum = 0;
    for (let i = 0, o = slot * d; i < d; i++, o++) sum += query[i]! * codes[o]!;
    return sum * this.scales[slot]!;
  }

  /** Every vector's coarse score: Σ q8·c in integers (exact in an int32: 512 × 127 × 127 < 2^31) × both scales. */
  private coarseScores(query: Float32Array): { coarse: Float32Array; qScale: number } {
    const n = this.ids.length;
    const { codes: q8, scale: qScale } = quantize(query);
    const q = new Int32Array(q8);
    const d = this.dimensions;
    const codes = this.codes;
    const scales = this.scales;
    const coarse = new Float32Array(n);
    if (this.scan) {
      const memory = this.scan.memory.buffer;
      new Int8Array(memory, 0, d).set(q8);
      const outAt = CODES_AT + this.scales.length * d;
      this.scan.dots(0, CODES_AT, n, d, outAt);
      const dots = new Int32Array(memory, outAt, n);
      for (let slot = 0; slot < n; slot++) coarse[slot] = dots[slot]! * qScale * scales[slot]!;
    } else for (let slot = 0, o = 0; slot < n; slot++) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < d; i += 4, o += 4) {
        s0 += q[i]! * codes[o]!;
        s1 += q[i + 1]! * codes[o + 1]!;
        s2 += q[i + 2]! * codes[o + 2]!;
        s3 += q[i + 3]! * codes[o + 3]!;
      }
      for (; i < d; i++, o++) s0 += q[i]! * codes[o]!;
      coarse[slot] = (s0 + s1 + s2 + s3) * qScale * scales[slot]!;
    }
    return { coarse, qScale };
  }

  /**
   * The k vectors with the highest dot product with `query` (a float vector of this index's
   * length), best first, exact as the file's comment says. With `candidates`, only those ids
   * are ranked (a re-ranking of another ranking's hits); unknown ids are ignored.
   */
  search(query: Float32Array, k: number, candidates?: Iterable<string>): VectorHit[] {
    if (query.length !== this.dimensions) throw new Error(`A query of ${query.length} dimensions cannot search an index of ${this.dimensions}`);
    const n = this.ids.length;
    if (k <= 0 || n === 0) return [];
    if (candidates) {
      const hits: VectorHit[] = [];
      const seen = new Set<number>();
      for (const id of candidates) {
        const slot = this.slots.get(id);
        if (slot === undefined || seen.has(slot)) continue;
        seen.add(slot);
        hits.push({ id, score: this.exact(query, slot) });
      }
      return hits.sort(byScore).slice(0, k);
    }

    // 1. Coarse scores, in integers (see coarseScores).
    const { coarse, qScale } = this.coarseScores(query);

    // 2. The best `want` by coarse score, re-scored exactly.
    const want = Math.min(n, Math.max(MIN_RESCORED, 4 * k));
    const rescored = new Set<number>(topSlots(coarse, want));
    const exact = new Map<number, number>();
    for (const slot of rescored) exact.set(slot, this.exact(query, slot));

    // 3. The certificate: whoever could still reach the k-th exact score is re-scored too.
    const kth = kthLargest([...exact.values()], Math.min(k, exact.size));
    const half = qScale / 2;
    const slack = this.slack;
    for (let slot = 0; slot < n; slot++) {
      if (rescored.has(slot)) continue;
      if (coarse[slot]! + half * slack[slot]! + 1e-6 >= kth) exact.set(slot, this.exact(query, slot));
    }
    const hits: VectorHit[] = [];
    for (const [slot, score] of exact) hits.push({ id: this.ids[slot]!, score });
    return hits.sort(byScore).slice(0, k);
  }
}

function byScore(a: VectorHit, b: VectorHit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The k-th largest of `values` (1-based), or -Infinity when there are fewer. */
function kthLargest(values: number[], k: number): number {
  if (k <= 0 || values.length < k) return -Infinity;
  return values.sort((a, b) => b - a)[k - 1]!;
}

/** The slots of the `want` highest scores, by a bounded min-heap (no sort of every score). */
function topSlots(scores: Float32Array, want: number): number[] {
  const heap = new Int32Array(want);
  let size = 0;
  const less = (a: number, b: number) => scores[a]! < scores[b]!;
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let m = at;
      if (l < size && less(heap[l]!, heap[m]!)) m = l;
      if (r < size && less(heap[r]!, heap[m]!)) m = r;
      if (m === at) return;
      const t = heap[at]!;
      heap[at] = heap[m]!;
      heap[m] = t;
      at = m;
    }
  };
  for (let slot = 0; slot < scores.length; slot++) {
    if (size < want) {
      let at = size++;
      heap[at] = slot;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!less(heap[at]!, heap[parent]!)) break;
        const t = heap[at]!;
        heap[at] = heap[parent]!;
        heap[parent] = t;
        at = parent;
      }
    } else if (scores[slot]! > scores[heap[0]!]!) {
      heap[0] = slot;
      down(0);
    }
  }
  return Array.from(heap.subarray(0, size));
}

/**
 * The per-owner indexes of one process, bounded in bytes: past `capacityBytes`, the owners used
 * least recently are dropped (and loaded again from storage when next needed). Keyed by owner
 * and model, so a model change never ranks the old model's vectors.
 */
export function createVectorCache(options: { capacityBytes: number }) {
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  const entries = new Map<string, OwnerVectors>();
  const key = (ownerId: string, model: string) => `${ownerId}\u0000${model}`;

  function evict(keep: string): void {
    let total = 0;
    for (const index of entries.values()) total += index.bytes;
    for (const [k, index] of entries) {
      if (total <= options.capacityBytes) break;
      if (k === keep) continue;
      entries.delete(k);
      total -= index.bytes;
    }
  }

  return {
    /** The owner's index for `model` if held (and marks it used). */
    get(ownerId: string, model: string): OwnerVectors | undefined {
      const k = key(ownerId, model);
      const index = entries.get(k);
      if (index) {
        entries.delete(k);
        entries.set(k, index);
      }
      return index;
    },
    /** Holds `index` for its owner and model, dropping the least recently used past the capacity. */
    set(ownerId: string, index: OwnerVectors): void {
      const k = key(ownerId, index.model);
      entries.delete(k);
      entries.set(k, index);
      evict(k);
    },
    /** Forgets every index of `ownerId` (all models). */
    drop(ownerId: string): void {
      for (const k of [...entries.keys()]) if (k.startsWith(`${ownerId}\u0000`)) entries.delete(k);
    },
    /** Bytes held now. */
    bytes(): number {
      let total = 0;
      for (const index of entries.values()) total += index.bytes;
      return total;
    },
  };
}

export type VectorCache = ReturnType<typeof createVectorCache>;
