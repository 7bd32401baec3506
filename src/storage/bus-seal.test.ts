// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBusSeal, MAX_AGE_MS, sealedLength, watchDroppedMessages, type BusKeySource } from './bus-seal.js';
import { MAX_MESSAGE_BYTES } from './cluster-bus.js';
import { MAX_NOTIFY_PAYLOAD } from './pg-listener.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const keysOf = (active: { id: string; key: Buffer } | undefined, ...others: Array<{ id: string; key: Buffer }>): BusKeySource => {
  const all = new Map([...(active ? [active] : []), ...others].map((k) => [k.id, k]));
  return { active: () => active, get: (id) => all.get(id) };
};
const ROOT = key('rk_00000000000000aa');

/** Two nodes of one cluster on one clock that the test moves. */
function pair(options: { scope?: string; keysA?: BusKeySource; keysB?: BusKeySource } = {}) {
  let now = 1_000_000;
  const clock = () => now;
  const a = createBusSeal({ nodeId: 'aaaaaaaaaaaa', keys: options.keysA ?? keysOf(ROOT), scope: options.scope ?? 's1', clock });
  const b = createBusSeal({ nodeId: 'bbbbbbbbbbbb', keys: options.keysB ?? keysOf(ROOT), scope: 's1', clock });
  return { a, b, advance: (ms: number) => (now += ms) };
}

describe('the seal on messages between nodes', () => {
  it('opens what a node of the cluster sealed, with its sender, and hides the body', () => {
    const { a, b } = pair();
    const payload = a.seal('chan_b', 'afp.request {"cmd":"ls"}')!;
    expect(payload).toMatch(/^h1\.rk_00000000000000aa\.[A-Za-z0-9_-]+$/);
    expect(payload).not.toContain('cmd');
    expect(b.open('chan_b', payload)).toEqual({ from: 'aaaaaaaaaaaa', body: 'afp.request {"cmd":"ls"}' });
  });

  it('drops a message in clear, with an unknown key, altered, or sealed for another channel or cluster', () => {
    const { a, b } = pair();
    expect(b.open('chan_b', 'aaaaaaaaaaaa afp.request {}')).toBe('unsealed');
    expect(b.open('chan_b', 'h1.not-a-key.xyz')).toBe('unsealed');
    expect(b.open('chan_b', `h1.rk_00000000000000bb.${randomBytes(60).toString('base64url')}`)).toBe('unknownKey');
    const payload = a.seal('chan_b', 'topic hello')!;
    const raw = Buffer.from(payload.split('.')[2]!, 'base64url');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    expect(b.open('chan_b', `h1.${ROOT.id}.${raw.toString('base64url')}`)).toBe('forged');
    expect(b.open('chan_b', `h1.${ROOT.id}.AAAA`)).toBe('forged');
    expect(b.open('chan_all', payload)).toBe('forged');
    const other = createBusSeal({ nodeId: 'cccccccccccc', keys: keysOf(ROOT), scope: 'another schema', clock: () => 1_000_000 });
    expect(other.open('chan_b', payload)).toBe('forged');
    expect(b.dropped).toEqual({ unsealed: 2, unknownKey: 1, forged: 3, stale: 0, replayed: 0, unknownSender: 0 });
  });

  it('hears each message once: a replay is dropped, a late one within the window is not', () => {
    const { a, b } = pair();
    const first = a.seal('chan_b', 't 1')!;
    const second = a.seal('chan_b', 't 2')!;
    const third = a.seal('chan_b', 't 3')!;
    expect(b.open('chan_b', first)).toMatchObject({ body: 't 1' });
    expect(b.open('chan_b', third)).toMatchObject({ body: 't 3' });
    // Out of order (another channel's message overtook it): still heard, once.
    expect(b.open('chan_b', second)).toMatchObject({ body: 't 2' });
    expect(b.open('chan_b', second)).toBe('replayed');
    expect(b.open('chan_b', first)).toBe('replayed');
    expect(b.dropped.replayed).toBe(2);
  });

  it('drops a number so far below the highest heard that it can no longer be told apart', () => {
    const { a, b } = pair();
    const early = a.seal('chan_b', 't early')!;
    let last = '';
    for (let i = 0; i < 5_000; i++) last = a.seal('chan_b', `t ${i}`)!;
    expect(b.open('chan_b', last)).toMatchObject({ body: 't 4999' });
    expect(b.open('chan_b', early)).toBe('replayed');
  });

  it('drops a message sealed too long ago, from the future, or before the receiver started', () => {
    const { a, b, advance } = pair();
    const old = a.seal('chan_b', 't old')!;
    advance(MAX_AGE_MS + 1);
    expect(b.open('chan_b', old)).toBe('stale');
    // A receiver that started after a message was sealed cannot know whether it heard it.
    const sealedEarlier = a.seal('chan_c', 't before c')!;
    advance(1_000);
    const c = createBusSeal({ nodeId: 'cccccccccccc', keys: keysOf(ROOT), scope: 's1', clock: () => 1_000_000 + MAX_AGE_MS + 1 + 1_000 });
    expect(c.open('chan_c', sealedEarlier)).toBe('stale');
    const ahead = createBusSeal({ nodeId: 'dddddddddddd', keys: keysOf(ROOT), scope: 's1', clock: () => 1_000_000 + MAX_AGE_MS + 1 + 1_000 + 10_000 });
    expect(c.open('chan_c', ahead.seal('chan_c', 't from the future')!)).toBe('stale');
  });

  it('opens a message sealed with an older root key that the receiver still has (a rotation under way)', () => {
    const newer = key('rk_00000000000000bb');
    const { a, b } = pair({ keysA: keysOf(ROOT), keysB: keysOf(newer, ROOT) });
    expect(b.open('x', a.seal('x', 't rotated')!)).toMatchObject({ body: 't rotated' });
    expect(a.open('y', b.seal('y', 't back')!)).toBe('unknownKey');
  });

  it('seals nothing before the node has a root key', () => {
    const lonely = createBusSeal({ nodeId: 'eeeeeeeeeeee', keys: keysOf(undefined), scope: 's1' });
    expect(lonely.seal('x', 't hello')).toBeUndefined();
  });

  it('keeps the largest message within a notification once sealed', () => {
    const { a } = pair();
    const body = `${'t'.repeat(40)} ${'ü'.repeat(MAX_MESSAGE_BYTES / 2)}`;
    expect(Buffer.byteLength(body) - 41).toBe(MAX_MESSAGE_BYTES);
    expect(a.seal('hearth_bus_0123456789abcdef_all', body)!.length).toBeLessThanOrEqual(sealedLength(MAX_MESSAGE_BYTES));
    expect(sealedLength(MAX_MESSAGE_BYTES)).toBeLessThanOrEqual(MAX_NOTIFY_PAYLOAD);
  });
});

describe('the warning about dropped messages', () => {
  it('says the first drop at once, and the rest of the minute together at its end', async () => {
    const { b } = pair();
    const said: string[] = [];
    const stop = watchDroppedMessages(b, (message) => said.push(message), 50);
    b.open('x', 'in clear');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/dropped 1 message\(s\) \(unsealed 1\).*REVOKE CONNECT/);
    b.open('x', 'in clear');
    b.open('x', `h1.rk_00000000000000bb.${randomBytes(60).toString('base64url')}`);
    expect(said).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(said).toHaveLength(2);
    expect(said[1]).toMatch(/dropped 2 message\(s\) \(unsealed 1, unknownKey 1\): a node with another VAULT_KEY/);
    stop();
  });
});
