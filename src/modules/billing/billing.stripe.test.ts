// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { parseStripeForm, signStripePayload } from '../../../test/fakes/stripe.js';
import { AppError } from '../../http/errors.js';
import { encodeStripeForm, verifyStripeSignature } from './billing.stripe.js';

const PAYLOAD = '{"id":"evt_test_1","object":"event"}';
const T = 1_700_000_000;
// openssl: printf '%s' '1700000000.{"id":"evt_test_1","object":"event"}' | openssl dgst -sha256 -hmac whsec_known
const KNOWN = 'b49527c89327ee87ef7a43b368cd72e2191b1ed181f8af69309a014d8cacff23';

function refusal(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).message;
  }
  throw new Error('expected a refusal');
}

describe('verifyStripeSignature', () => {
  const at = { nowMs: T * 1000 };

  it('accepts a known-answer signature computed outside Node', () => {
    expect(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T},v1=${KNOWN}`, 'whsec_known', at)).not.toThrow();
    // Upper-case hex, spaces after commas, and unknown schemes around it are fine.
    expect(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T}, v0=abc, v1=${KNOWN.toUpperCase()}`, 'whsec_known', at)).not.toThrow();
  });

  it('accepts what the fake (Stripe\'s scheme, written separately) signs', () => {
    const header = signStripePayload(PAYLOAD, 'whsec_x', { timestamp: T });
    expect(() => verifyStripeSignature(Buffer.from(PAYLOAD), header, 'whsec_x', at)).not.toThrow();
  });

  it('refuses a wrong secret, a changed body, a missing part, and a timestamp outside 300 s', () => {
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T},v1=${KNOWN}`, 'whsec_other', at))).toContain('no signature matches');
    expect(refusal(() => verifyStripeSignature(Buffer.from(`${PAYLOAD} `), `t=${T},v1=${KNOWN}`, 'whsec_known', at))).toContain('no signature matches');
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T + 1},v1=${KNOWN}`, 'whsec_known', at))).toContain('no signature matches');
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), undefined, 'whsec_known', at))).toContain('missing');
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `v1=${KNOWN}`, 'whsec_known', at))).toContain('timestamp');
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T}`, 'whsec_known', at))).toContain('no v1');
    expect(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T},v1=${KNOWN}`, 'whsec_known', { nowMs: (T + 300) * 1000 })).not.toThrow();
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T},v1=${KNOWN}`, 'whsec_known', { nowMs: (T + 301) * 1000 }))).toContain('300 s');
    expect(refusal(() => verifyStripeSignature(Buffer.from(PAYLOAD), `t=${T},v1=${KNOWN}`, 'whsec_known', { nowMs: (T - 301) * 1000 }))).toContain('300 s');
  });
});

describe('encodeStripeForm', () => {
  it("writes Stripe's bracket notation, which the fake reads back to the same structure", () => {
    const params = {
      mode: 'subscription',
      line_items: [{ price_data: { currency: 'usd', unit_amount: 900, recurring: { interval: 'month' }, product_data: { name: 'Hearth Pro & more' } }, quantity: 1 }],
      success_url: 'https://h.example/ok?session_id={CHECKOUT_SESSION_ID}',
      metadata: { userId: 'usr_1', planId: 'pro' },
      skipped: undefined,
      nothing: null,
    };
    const encoded = encodeStripeForm(params);
    expect(encoded).toContain('line_items[0][price_data][product_data][name]=Hearth%20Pro%20%26%20more');
    expect(encoded).not.toContain('skipped');
    expect(encoded).not.toContain('nothing');
    expect(parseStripeForm(encoded)).toEqual({
      mode: 'subscription',
      line_items: [{ price_data: { currency: 'usd', unit_amount: '900', recurring: { interval: 'month' }, product_data: { name: 'Hearth Pro & more' } }, quantity: '1' }],
      success_url: 'https://h.example/ok?session_id={CHECKOUT_SESSION_ID}',
      metadata: { userId: 'usr_1', planId: 'pro' },
    });
  });
});
