// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { createOutboundClient, isBlockedAddress, isPrivateHost } from './outbound.js';

describe('isBlockedAddress', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['10.1.2.3', 'private 10/8'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT upper'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback range'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 upper'],
    ['192.168.1.1', 'private 192.168/16'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'IPv6 unspecified'],
    ['::1', 'IPv6 loopback'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'cloud metadata (IPv6)'],
    ['fe80::1', 'IPv6 link-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback (hex)'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated private'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, as the URL parser writes [::127.0.0.1]'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata'],
    ['::8.8.8.8', 'IPv4-compatible (the whole deprecated ::/96)'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::', '6to4 of 169.254.169.254'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo prefix'],
    ['64:ff9b:1::a00:1', 'NAT64 local use'],
    ['not-an-ip', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2001:4860:4860::8888',
    '2001:200::1',
    '2003::1',
    '2a00:1450:4001::200e',
  ])(
    'allows the public address %s',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );
});

describe('isPrivateHost (a URL hostname, before any lookup)', () => {
  it.each(['localhost', 'localhost.', 'localhost..', 'foo.localhost', 'foo.localhost.', 'LOCALHOST', '[::1]', '[::ffff:7f00:1]', '0.0.0.0', '127.0.0.1', '10.0.0.1', ''])(
    'refuses %j',
    (host) => expect(isPrivateHost(host)).toBe(true),
  );
  it.each(['example.com', 'localhost.example.com', 'mylocalhost', '8.8.8.8', '[2606:4700::1111]'])('leaves %j to the lookup or allows it', (host) =>
    expect(isPrivateHost(host)).toBe(false),
  );
  it('refuses the trailing-dot and localhost-zone names without a lookup', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: false });
    for (const url of ['http://localhost.:9/', 'http://foo.localhost:9/']) {
      const error = (await client.request({ url }).catch((e: unknown) => e)) as AppError;
      expect(error).toBeInstanceOf(AppError);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toMatch(/loopback, private/);
    }
    await client.close();
  });
});

describe('the guarded client against real local servers', () => {
  let server: Server;
  let base: string;
  let other: Server;
  let otherBase: string;
  const seenAuth: Array<string | undefined> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/hello') return res.end(JSON.stringify({ hello: 'world' }));
      if (req.url === '/big') return res.end('x'.repeat(5000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000);
      if (req.url === '/to-other') {
        res.writeHead(302, { location: `${otherBase}/landing` });
        return res.end();
      }
      if (req.url === '/loop') {
        res.writeHead(302, { location: '/loop' });
        return res.end();
      }
      if (req.url === '/to-hello') {
        res.writeHead(307, { location: '/hello' });
        return res.end();
      }
      res.statusCode = 404;
      res.end();
    });
    other = createServer((req, res) => {
      seenAuth.push(req.headers.authorization);
      res.end('landed');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    other.close();
  });

  const refusedWith = async (promise: Promise<unknown>, pattern: RegExp) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toMatch(pattern);
  };

  it('refuses loopback by literal address and by a name that resolves to it', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: false });
    await refusedWith(client.request({ url: `${base}/hello` }), /127\.0\.0\.1/);
    await refusedWith(client.request({ url: base.replace('127.0.0.1', 'localhost') + '/hello' }), /loopback, private/);
    const byName = await client.request({ url: base.replace('127.0.0.1', 'localhost') + '/hello' }).catch((e: AppError) => e);
    expect((byName as AppError).code).toBe('VALIDATION_ERROR');
    await refusedWith(client.request({ url: 'http://[::1]:9/' }), /::1/);
    await refusedWith(client.request({ url: 'http://[::ffff:127.0.0.1]:9/' }), /refusing/i);
    await refusedWith(client.request({ url: 'http://169.254.169.254/latest/meta-data/' }), /169\.254\.169\.254/);
    await refusedWith(client.request({ url: 'http://10.0.0.1/' }), /10\.0\.0\.1/);
    await refusedWith(client.request({ url: 'http://[::127.0.0.1]:9/' }), /refusing/i);
    await refusedWith(client.request({ url: 'http://[2002:7f00:1::1]:9/' }), /refusing/i);
    await client.close();
  });

  it('never tells the caller what a name resolved to', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: false });
    const error = (await client.request({ url: base.replace('127.0.0.1', 'localhost') + '/hello' }).catch((e: unknown) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.message).toMatch(/^Refusing to call localhost: it resolves to a loopback, private, link-local or reserved address/);
    const shown = JSON.stringify({ message: error.message, details: error.details });
    for (const resolved of ['127.0.0.1', '::1']) expect(shown).not.toContain(resolved);
    expect(error.details).toEqual({ host: 'localhost' });
    await client.close();
  });

  it('refuses other schemes and credentials in the address', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: true });
    await refusedWith(client.request({ url: 'file:///etc/passwd' }), /Only http and https/);
    await refusedWith(client.request({ url: 'ftp://example.com/' }), /Only http and https/);
    await refusedWith(client.request({ url: `http://user:pw@127.0.0.1:1/` }), /credentials/);
    await client.close();
  });

  it('with ALLOW_PRIVATE_NETWORK reaches local servers and follows redirects', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: true });
    const res = await client.request({ url: `${base}/to-hello` });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ hello: 'world' });
    expect(res.url).toBe(`${base}/hello`);
    await client.close();
  });

  it('checks every redirect hop: a trusted origin may not redirect into a blocked one', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: false, trustedOrigins: [base] });
    expect((await client.request({ url: `${base}/hello` })).status).toBe(200);
    await refusedWith(client.request({ url: `${base}/to-other` }), /refusing/i);
    await client.close();
  });

  it('drops credentials when a redirect changes origin, and stops redirect loops', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: true });
    const res = await client.request({ url: `${base}/to-other`, headers: { authorization: 'Bearer secret' } });
    expect(res.text()).toBe('landed');
    expect(seenAuth.at(-1)).toBeUndefined();
    await refusedWith(client.request({ url: `${base}/loop` }), /redirected more than 5 times/);
    const manual = await client.request({ url: `${base}/loop`, followRedirects: false });
    expect(manual.status).toBe(302);
    await client.close();
  });

  it('caps the response size and the time', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: true });
    await refusedWith(client.request({ url: `${base}/big`, maxResponseBytes: 1000 }), /more than 1000 bytes/);
    await refusedWith(client.request({ url: `${base}/slow`, timeoutMs: 100 }), /did not answer in time/);
    const error = await client.request({ url: `${base}/slow`, timeoutMs: 100 }).catch((e: AppError) => e);
    expect((error as AppError).code).toBe('UPSTREAM_ERROR');
    await client.close();
  });

  it('answers UPSTREAM_ERROR when nothing listens', async () => {
    const client = createOutboundClient({ allowPrivateNetwork: true });
    const error = await client.request({ url: 'http://127.0.0.1:1/' }).catch((e: AppError) => e);
    expect((error as AppError).code).toBe('UPSTREAM_ERROR');
    await client.close();
  });
});
