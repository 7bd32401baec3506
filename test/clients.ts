/**
 * Clients on addresses of their own and a clock that stands still: for the tests of what is
 * counted per client address (password attempts), with TRUST_PROXY on so that the address
 * comes from X-Forwarded-For.
 */
import { vi } from 'vitest';
import type { ApiResponse, TestApp } from './harness.js';

let addressCounter = 0;
/** A client address not used before in this test file (198.18.0.0/15 is for benchmarking, never routed). */
export function newAddress(): string {
  addressCounter += 1;
  return `198.${18 + ((addressCounter >> 16) & 1)}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}

/** The header that makes a request come from `address` (TRUST_PROXY on). */
export const fromAddress = (address: string) => ({ 'x-forwarded-for': address });

/** POST /auth/login with these credentials (the owner's password unless another is given) from `address`. */
export function loginFrom(t: TestApp, credentials: { email: string; password: string }, address: string, password = credentials.password): Promise<ApiResponse> {
  return t.request('POST', '/api/v1/auth/login', { body: { email: credentials.email, password }, headers: fromAddress(address) });
}

/**
 * Stops Date where it is (timers run as usual), so that a wait of 1 s cannot run out on a slow
 * machine between two requests; a test that needs a wait to pass moves the clock itself with
 * vi.setSystemTime. Answers the function that restores the clock: `beforeEach(freezeDate)`
 * (a beforeEach's answer runs after each test) or `onTestFinished(freezeDate())`.
 */
export function freezeDate(): () => void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now());
  return () => void vi.useRealTimers();
}
