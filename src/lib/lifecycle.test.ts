// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { createLifecycle, type PartLog } from './lifecycle.js';

function recordingLog(): PartLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (_o, message) => lines.push(message), error: (_o, message) => lines.push(message) };
}

describe('the registry of parts', () => {
  it('starts the parts in the order they were added and stops them the other way round, once each', async () => {
    const seen: string[] = [];
    const parts = createLifecycle();
    for (const name of ['storage', 'pool', 'worker']) {
      parts.add({ name, start: () => void seen.push(`start ${name}`), stop: () => void seen.push(`stop ${name}`) });
    }
    const log = recordingLog();
    await Promise.all([parts.start(log), parts.start(log)]);
    await Promise.all([parts.stop(), parts.stop()]);
    expect(seen).toEqual(['start storage', 'start pool', 'start worker', 'stop worker', 'stop pool', 'stop storage']);
    expect(parts.names()).toEqual(['storage', 'pool', 'worker']);
  });

  it('stops every part when one fails to stop, storage last, then reports and throws the failure', async () => {
    const seen: string[] = [];
    const parts = createLifecycle();
    parts.add({ name: 'storage', stop: () => void seen.push('storage closed') });
    parts.add({
      name: 'stuck worker',
      stop: () => {
        throw new Error('the worker would not stop');
      },
    });
    parts.add({ name: 'sweep', stop: () => void seen.push('sweep stopped') });
    const log = recordingLog();
    await parts.start(log);
    await expect(parts.stop()).rejects.toThrow('the worker would not stop');
    expect(seen).toEqual(['sweep stopped', 'storage closed']);
    expect(log.lines).toEqual(['stuck worker failed to stop: the worker would not stop']);
  });

  it('stops parts that were never started, and starts nothing once stopping began', async () => {
    const seen: string[] = [];
    const parts = createLifecycle();
    parts.add({ name: 'worker', start: () => void seen.push('started'), stop: () => void seen.push('stopped') });
    await parts.stop();
    await parts.start(recordingLog());
    expect(seen).toEqual(['stopped']);
    expect(() => parts.add({ name: 'late' })).toThrow(/after the parts started or stopped/);
  });
});
