/** Helpers for the approval tests: tokens under a policy, a held request, and who may read an approval. */
import { expect } from 'vitest';
import type { ActionClass } from '../src/http/access.js';
import { expectError, type ApiResponse, type Owner, type TestApp } from './harness.js';

export type Rules = Partial<Record<ActionClass, 'allow' | 'ask' | 'deny'>>;

/** A new API token of `owner` with `scopes`, its id, and the policy `rules` (set by the owner). */
export async function policyToken(t: TestApp, owner: Owner, scopes: string[], rules: Rules = {}): Promise<{ token: string; id: string }> {
  const token = await t.tokenWithScopes(owner, scopes);
  const id = (await t.container.tokens.authenticate(token))!.tokenId;
  const res = await t.request('PUT', `/api/v1/tokens/${id}/policy`, { token: owner.token, body: { rules } });
  expect(res.status, res.text).toBe(200);
  return { token, id };
}

/** Tokens that must not read `owner`'s approvals: another token of the owner with the same `scopes`, and another owner's. */
export async function outsiders(t: TestApp, owner: Owner, scopes: string[]): Promise<string[]> {
  const bystander = await policyToken(t, owner, scopes);
  const stranger = await t.createOwner('Approvals stranger');
  return [bystander.token, stranger.token];
}

/** Asserts the 202 of a held request and answers the approval's id. */
export function expectHeld(res: Pick<ApiResponse, 'status' | 'body' | 'headers' | 'text'>): string {
  expect(res.status, res.text).toBe(202);
  expect(res.body.data.status).toBe('pending');
  expect(Date.parse(res.body.data.expiresAt)).toBeGreaterThan(Date.now());
  expect(res.headers.location).toBe(`/api/v1/approvals/${res.body.data.approvalId}`);
  return res.body.data.approvalId;
}

/**
 * Approves as the owner and asserts the approval ran to `executed` with `status`; then that the
 * requesting token reads the answer the route gave, the owner reads only how it ended, and
 * `others` (tokens of the owner and of other owners) cannot read it at all. Answers the body
 * the route answered, as the requesting token reads it.
 */
export async function approveAndRead(
  t: TestApp,
  approvalId: string,
  parties: { owner: Owner; requester: string; others: string[] },
  status = 200,
): Promise<any> {
  const approved = await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: parties.owner.token });
  expect(approved.status, approved.text).toBe(200);
  expect(approved.body.data, approved.text).toMatchObject({ status: 'executed', resultStatus: status, result: null });
  const mine = await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: parties.requester });
  expect(mine.body.data).toMatchObject({ status: 'executed', resultStatus: status, result: { status } });
  expect((await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: parties.owner.token })).body.data).toMatchObject({ status: 'executed', result: null });
  for (const other of parties.others) expectError(await t.request('GET', `/api/v1/approvals/${approvalId}`, { token: other }), 404, 'NOT_FOUND');
  // Decided once: it cannot be approved (and so run) again.
  expectError(await t.request('POST', `/api/v1/approvals/${approvalId}/approve`, { token: parties.owner.token }), 409, 'CONFLICT');
  return mine.body.data.result.body;
}
