// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { createVectorCache, dequantize, OwnerVectors, quantize } from './vectors.js';

let seed = 7;
const random = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};
const unit = (d: number) => {
  const v = Float32Array.from({ length: d }, random);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe('vectors in memory', () => {
  it('quantizes within half a step per dimension', () => {
    const v = unit(512);
    const { codes, scale } = quantize(v);
    const back = dequantize(codes, scale);
    for (let i = 0; i < v.length; i++) expect(Math.abs(back[i]! - v[i]!)).toBeLessThanOrEqual(scale / 2 + 1e-7);
    expect(Math.max(...[...codes].map(Math.abs))).toBe(127);
  });

  it('answers exactly the brute-force top k of the stored vectors, with or without a candidate set', () => {
    for (const d of [512, 20]) {
      const index = new OwnerVectors('m', d);
      const stored = new Map<string, Float32Array>();
      for (let i = 0; i < 3000; i++) {
        const { codes, scale } = quantize(unit(d));
        index.put(`v${i}`, codes, scale);
        stored.set(`v${i}`, dequantize(codes, scale));
      }
      index.remove('v5');
      stored.delete('v5');
      const q = unit(d);
      const score = (v: Float32Array) => v.reduce((s, x, i) => s + x * q[i]!, 0);
      const brute = [...stored].map(([id, v]) => ({ id, score: score(v) })).sort((a, b) => b.score - a.score);
      const hits = index.search(q, 10);
      expect(hits.map((h) => h.id)).toEqual(brute.slice(0, 10).map((b) => b.id));
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(brute[i]!.score, 5));
      const only = ['v1', 'v2', 'v3', 'v5', 'nope'];
      expect(index.search(q, 2, only).map((h) => h.id)).toEqual(brute.filter((b) => only.includes(b.id)).slice(0, 2).map((b) => b.id));
    }
  });

  it('refuses a vector of another length, keys the cache by model, and drops the least recent owner past its capacity', () => {
    const a = new OwnerVectors('model-one', 16);
    expect(() => a.put('x', new Int8Array(8), 1)).toThrow();
    const cache = createVectorCache({ capacityBytes: a.bytes * 2 + 1 });
    cache.set('owner-1', a);
    expect(cache.get('owner-1', 'model-two')).toBeUndefined();
    expect(cache.get('owner-1', 'model-one')).toBe(a);
    cache.set('owner-2', new OwnerVectors('model-one', 16));
    cache.get('owner-1', 'model-one');
    cache.set('owner-3', new OwnerVectors('model-one', 16));
    expect(cache.get('owner-2', 'model-one')).toBeUndefined();
    expect(cache.get('owner-1', 'model-one')).toBe(a);
  });
});
