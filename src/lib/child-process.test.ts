// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { childEnvironment, streamTail } from './child-process.js';

describe('childEnvironment', () => {
  const env = {
    PATH: '/bin',
    Path: '/win',
    VAULT_KEY: 'secret',
    DATABASE_URL: 'postgres://u:p@db/x',
    npm_config_registry: 'https://registry.example/',
    NODE_ENV: 'production',
    NODE_OPTIONS: '--require ./steal.js',
    HOME: undefined,
  };

  it('security: keeps only the allowed names and prefixes, case-insensitively, and empties NODE_OPTIONS', () => {
    expect(childEnvironment({ names: ['path', 'HOME'], prefixes: ['NPM_', 'NODE_'] }, env)).toEqual({
      PATH: '/bin',
      Path: '/win',
      npm_config_registry: 'https://registry.example/',
      NODE_ENV: 'production',
      NODE_OPTIONS: '',
    });
  });

  it('security: NODE_OPTIONS is emptied even when allowed by name', () => {
    expect(childEnvironment({ names: ['NODE_OPTIONS'] }, env)).toEqual({ NODE_OPTIONS: '' });
  });
});

describe('streamTail', () => {
  it('keeps only the last characters written', () => {
    const stream = new PassThrough();
    const tail = streamTail(stream, 5);
    stream.write('abc');
    stream.write(Buffer.from('defgh'));
    expect(tail()).toBe('defgh');
  });
});
