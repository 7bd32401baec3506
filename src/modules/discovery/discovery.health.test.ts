// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { createHealthService } from './discovery.health.js';

const base = { nodeId: 'abcdef012345', engine: 'postgres' as const };

describe('the health check', () => {
  it('asks the database at most once per period, and shares one query between concurrent checks', async () => {
    let queries = 0;
    const health = createHealthService({ ...base, maxAgeMs: 60_000, ping: async () => void queries++ });
    const reports = await Promise.all([health.check(), health.check(), health.check()]);
    await health.check();
    expect(queries).toBe(1);
    for (const report of reports) expect(report).toEqual({ status: 'ok', node: { id: base.nodeId, state: 'serving' }, database: { engine: 'postgres', reachable: true } });
  });

  it('reports a database that fails or does not answer in time as unreachable', async () => {
    const failing = createHealthService({ ...base, ping: () => Promise.reject(new Error('connection refused')) });
    expect(await failing.check()).toMatchObject({ status: 'unavailable', database: { reachable: false } });
    const silent = createHealthService({ ...base, timeoutMs: 50, ping: () => new Promise(() => {}) });
    const started = Date.now();
    expect(await silent.check()).toMatchObject({ status: 'unavailable', database: { reachable: false } });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('answers draining once told, without asking the database', async () => {
    let queries = 0;
    const health = createHealthService({ ...base, ping: async () => void queries++ });
    health.drain();
    expect(await health.check()).toEqual({ status: 'draining', node: { id: base.nodeId, state: 'draining' }, database: { engine: 'postgres', reachable: true } });
    expect(queries).toBe(0);
  });
});
