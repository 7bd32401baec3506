// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { redactUrl } from './schemas.js';

describe('redactUrl', () => {
  it('masks the query token and an OAuth callback code and state, wherever they stand', () => {
    expect(redactUrl('/api/v1/memory?token=hth_pat_secret&limit=5')).toBe('/api/v1/memory?token=[REDACTED]&limit=5');
    expect(redactUrl('/api/v1/oauth/callback/google?state=abc&code=4/0Aef-xyz')).toBe(
      '/api/v1/oauth/callback/google?state=[REDACTED]&code=[REDACTED]',
    );
    expect(redactUrl('/x?TOKEN=a#frag')).toBe('/x?TOKEN=[REDACTED]#frag');
  });

  it('masks them under a percent-encoded name too, as the query parser decodes names', () => {
    expect(redactUrl('/api/v1/memory?%74oken=hth_pat_secret&limit=5')).toBe('/api/v1/memory?%74oken=[REDACTED]&limit=5');
    expect(redactUrl('/api/v1/memory?limit=5&tok%65n=hth_pat_secret')).toBe('/api/v1/memory?limit=5&tok%65n=[REDACTED]');
    expect(redactUrl('/x?%54%4F%4B%45%4E=a&%63ode=b&st%61te=c#frag')).toBe('/x?%54%4F%4B%45%4E=[REDACTED]&%63ode=[REDACTED]&st%61te=[REDACTED]#frag');
    // A name that does not decode is left as written; the rest of the query is still masked.
    expect(redactUrl('/x?%E0%A4%A=1&token=secret')).toBe('/x?%E0%A4%A=1&token=[REDACTED]');
    // A value-less token parameter has nothing to hide.
    expect(redactUrl('/x?token&a=1')).toBe('/x?token&a=1');
  });

  it('leaves other parameters and paths alone', () => {
    expect(redactUrl('/api/v1/skills?q=code&category=state')).toBe('/api/v1/skills?q=code&category=state');
    expect(redactUrl('/api/v1/skills/_by_slug/token')).toBe('/api/v1/skills/_by_slug/token');
    expect(redactUrl('/api/v1/skills?tokens=1&x%74oken=2&token%20=3')).toBe('/api/v1/skills?tokens=1&x%74oken=2&token%20=3');
    expect(redactUrl('/api/v1/skills/%74oken?q=1')).toBe('/api/v1/skills/%74oken?q=1');
    expect(redactUrl('/api/v1/skills')).toBe('/api/v1/skills');
  });
});
