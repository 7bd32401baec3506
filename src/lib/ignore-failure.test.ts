// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { ignoreFailure } from './ignore-failure.js';

describe('ignoreFailure', () => {
  it('settles without rejecting when the promise fails, and only once it has', async () => {
    let fail!: (error: Error) => void;
    const failing = new Promise((_, reject) => (fail = reject));
    let settled = false;
    const ignored = ignoreFailure(failing, 'the test drops it').then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    fail(new Error('gone'));
    await expect(ignored).resolves.toBe(true);
  });

  it('settles when the promise succeeds, answering nothing', async () => {
    await expect(ignoreFailure(Promise.resolve(42), 'the value is not needed')).resolves.toBeUndefined();
  });
});
