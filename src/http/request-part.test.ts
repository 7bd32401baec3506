import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { inRequestPart } from './request-part.js';

describe('inRequestPart', () => {
  it('prefixes the fields of an error with the request part, keeping code, status, message and headers', async () => {
    const thrown = new AppError('VALIDATION_ERROR', 'expiresAt must be in the future', {
      details: [{ field: 'expiresAt', message: 'must be in the future' }, 'a detail without a field'],
      headers: { 'retry-after': '1' },
    });
    const error = await inRequestPart('body', async () => {
      throw thrown;
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, message: thrown.message, headers: { 'retry-after': '1' } });
    expect((error as AppError).details).toEqual([{ field: 'body.expiresAt', message: 'must be in the future' }, 'a detail without a field']);
  });

  it('passes results, errors without field lists and other errors through unchanged', async () => {
    expect(await inRequestPart('querystring', async () => 42)).toBe(42);
    const objectDetails = new AppError('PROVIDER_NOT_CONNECTED', 'renew', { details: { provider: 'google' } });
    await expect(inRequestPart('body', async () => Promise.reject(objectDetails))).rejects.toBe(objectDetails);
    const plain = new Error('boom');
    await expect(inRequestPart('body', async () => Promise.reject(plain))).rejects.toBe(plain);
  });
});
