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

  it('leaves other parameters and paths alone', () => {
    expect(redactUrl('/api/v1/skills?q=code&category=state')).toBe('/api/v1/skills?q=code&category=state');
    expect(redactUrl('/api/v1/skills/_by_slug/token')).toBe('/api/v1/skills/_by_slug/token');
  });
});
