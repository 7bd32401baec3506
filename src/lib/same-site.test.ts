// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { siteBindingRefusal } from './same-site.js';

describe('siteBindingRefusal', () => {
  it.each([
    ['https://api.github.com/v3', 'https://github.com'],
    ['https://github.com/api', 'https://www.github.com/'],
    ['https://www.github.com/api', 'https://github.com/'],
    ['https://deep.api.example.com', 'https://example.com/docs'],
    ['https://example.com', 'http://example.com'],
    ['http://api.example.com', 'http://example.com'],
    ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/'],
    ['https://api.example.com:8443', 'https://example.com'],
    // https://example.com:443 names no port (443 is the default): any port of the site is allowed.
    ['https://example.com:8443/', 'https://example.com:443/x'],
  ])('allows %s for a secret stored for %s', (target, site) => {
    expect(siteBindingRefusal(target, site)).toBeUndefined();
  });

  it.each([
    ['https://evil.example/v1', 'https://example.com', /not example\.com or one of its subdomains/],
    ['https://notgithub.com', 'https://github.com', /not github\.com/],
    ['https://github.com.evil.example', 'https://github.com', /not github\.com/],
    ['https://example.com', 'https://api.example.com', /not api\.example\.com/],
    ['http://api.github.com', 'https://github.com', /cleartext http/],
    ['http://github.com', 'https://github.com', /cleartext http/],
    ['http://127.0.0.1:9999/', 'http://127.0.0.1:8080/', /not on port 8080/],
    ['https://example.com/', 'https://example.com:8443/', /not on port 8443/],
    ['ftp://example.com/', 'https://example.com', /not an http or https address/],
    ['not a url', 'https://example.com', /not a valid address/],
  ])('refuses %s for a secret stored for %s', (target, site, reason) => {
    expect(siteBindingRefusal(target, site)).toMatch(reason);
  });
});
