// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { extractToken } from './access.js';

const TOKEN = 'hth_pat_Od0tA1Wxg5u5glaz9ZAVul4NgmRbNGXq2a2mOw';

function request(authorization: string | undefined, query: Record<string, unknown> = {}): FastifyRequest {
  return { headers: authorization === undefined ? {} : { authorization }, query } as unknown as FastifyRequest;
}

describe('extractToken', () => {
  it('reads a bearer token in any spelling of the scheme and its spacing', () => {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer   ${TOKEN}`, `Bearer\t${TOKEN}`, `Bearer ${TOKEN}  `, `Bearer ${TOKEN}\t`]) {
      expect(extractToken(request(header)), JSON.stringify(header)).toBe(TOKEN);
    }
  });

  it('reads a token of characters beyond ASCII as it is (the lookup refuses it), as the full pattern does', () => {
    expect(extractToken(request('Bearer tök\u00e9n'))).toBe('tök\u00e9n');
    expect(extractToken(request('Bearer ab\u007fcd'))).toBe('ab\u007fcd');
  });

  it('reads no token from a header that is not one bearer token', () => {
    for (const header of ['Bearer ', 'Bearer', `Bearer ${TOKEN} extra`, `Bearer ${TOKEN}\u00a0x`, `Basic ${TOKEN}`, `Bearer${TOKEN}`, ` Bearer ${TOKEN}`, `Bearer \u00a0${TOKEN}x y`]) {
      expect(extractToken(request(header)), JSON.stringify(header)).toBeUndefined();
    }
  });

  it('takes ?token= only when no Authorization header is sent', () => {
    expect(extractToken(request(undefined, { token: TOKEN }))).toBe(TOKEN);
    expect(extractToken(request(undefined, { token: '' }))).toBeUndefined();
    expect(extractToken(request('Basic x', { token: TOKEN }))).toBeUndefined();
  });
});
