import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { KB_MAX_CONTENT_BYTES } from './modules/knowledge/knowledge.service.js';
import { createTestApp } from '../test/harness.js';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', true],
    ['1', 1],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('reads %s', (raw, expected) => {
    expect(loadConfig(raw === undefined ? {} : { TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it('refuses what is neither', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/abc' })).toThrow(ConfigError);
  });

  it('believes X-Forwarded-For only from the hops or addresses named', async () => {
    const clientIp = async (trustProxy: boolean | number | string[]) => {
      const t = await createTestApp({ config: { trustProxy, authRateLimitPerMinute: 1 } });
      try {
        // Two logins from "the same" forged address: limited only when the forgery is believed.
        const forged = { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' };
        const body = { email: 'nobody@example.test', password: 'wrong-password' };
        await t.request('POST', '/api/v1/auth/login', { body, headers: forged });
        const second = await t.request('POST', '/api/v1/auth/login', { body, headers: { 'x-forwarded-for': '192.0.2.1, 198.51.100.7' } });
        return second.status;
      } finally {
        await t.close();
      }
    };
    // One hop: the nearest forwarded address (198.51.100.7) is the client for both requests: limited.
    expect(await clientIp(1)).toBe(429);
    // Every hop believed: the left-most address differs, so the forged client escapes the limit.
    expect(await clientIp(true)).toBe(401);
    // The proxy (inject's 127.0.0.1) is not in the list: X-Forwarded-For is ignored, same client: limited.
    expect(await clientIp(['10.0.0.0/8'])).toBe(429);
  });
});

describe('EXTRACT_* settings', () => {
  it('have defaults that keep a server and two workers under 1 GiB', () => {
    expect(loadConfig({}).extract).toEqual({
      timeoutMs: 30_000,
      maxMemoryMb: 256,
      maxPages: 2_000,
      maxInflatedBytes: 32 * 1024 * 1024,
      maxTextChars: 10 * 1024 * 1024,
      concurrency: 2,
    });
  });

  it('are read, and refused out of range with the setting named', () => {
    const env = {
      EXTRACT_TIMEOUT_MS: '5000',
      EXTRACT_MAX_MEMORY_MB: '512',
      EXTRACT_MAX_PAGES: '10',
      EXTRACT_MAX_INFLATED_BYTES: '1048576',
      EXTRACT_MAX_TEXT_CHARS: '5000',
      EXTRACT_CONCURRENCY: '4',
    };
    expect(loadConfig(env).extract).toEqual({ timeoutMs: 5_000, maxMemoryMb: 512, maxPages: 10, maxInflatedBytes: 1_048_576, maxTextChars: 5_000, concurrency: 4 });
    expect(() => loadConfig({ EXTRACT_MAX_MEMORY_MB: '8' })).toThrow(/EXTRACT_MAX_MEMORY_MB must be a whole number from 32/);
    expect(() => loadConfig({ EXTRACT_CONCURRENCY: '0' })).toThrow(/EXTRACT_CONCURRENCY/);
    expect(() => loadConfig({ EXTRACT_TIMEOUT_MS: '100' })).toThrow(/EXTRACT_TIMEOUT_MS/);
    expect(() => loadConfig({ EXTRACT_MAX_PAGES: 'many' })).toThrow(ConfigError);
  });

  it("cap EXTRACT_MAX_TEXT_CHARS at the knowledge base's content limit (10 MiB)", () => {
    expect(loadConfig({ EXTRACT_MAX_TEXT_CHARS: String(10 * 1024 * 1024) }).extract.maxTextChars).toBe(10 * 1024 * 1024);
    expect(() => loadConfig({ EXTRACT_MAX_TEXT_CHARS: String(10 * 1024 * 1024 + 1) })).toThrow(/EXTRACT_MAX_TEXT_CHARS must be a whole number from 1000 to 10485760/);
    expect(() => loadConfig({ EXTRACT_MAX_TEXT_CHARS: '1000000000' })).toThrow(ConfigError);
    expect(loadConfig({}).extract.maxTextChars).toBe(KB_MAX_CONTENT_BYTES);
  });
});

describe('WEBHOOK_DELIVERY_RETENTION_DAYS', () => {
  it('keeps finished deliveries 30 days unless told otherwise', () => {
    expect(loadConfig({}).webhooks.deliveryRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '' }).webhooks.deliveryRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '1' }).webhooks.deliveryRetentionDays).toBe(1);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '365' }).webhooks.deliveryRetentionDays).toBe(365);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '3650' }).webhooks.deliveryRetentionDays).toBe(3650);
  });

  it('is refused out of 1 to 3650 days, with the setting named', () => {
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS must be a whole number from 1 to 3650, got "0"/);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '3651' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '7.5' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: 'forever' })).toThrow(ConfigError);
  });
});

describe('EMBEDDINGS', () => {
  it('defaults to the built-in encoder, started on need', () => {
    expect(loadConfig({}).embeddings).toMatchObject({ kind: 'builtin', model: 'universal-sentence-encoder-lite', baseUrl: undefined, batchSize: 16, maxMemoryMb: 512 });
    expect(loadConfig({ EMBEDDINGS: 'off' }).embeddings.kind).toBe('off');
  });

  it('openai needs the endpoint and the model, and drops a trailing slash', () => {
    expect(() => loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_BASE_URL/);
    expect(() => loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(/EMBEDDINGS_MODEL/);
    expect(() => loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'ftp://x/v1', EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_BASE_URL must be an http\(s\) address/);
    expect(loadConfig({ EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1/', EMBEDDINGS_MODEL: 'nomic-embed-text' }).embeddings).toMatchObject({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      batchSize: 64,
    });
  });

  it('refuses an unknown kind and numbers out of range, with the setting named', () => {
    expect(() => loadConfig({ EMBEDDINGS: 'bert' })).toThrow(/EMBEDDINGS/);
    expect(() => loadConfig({ EMBEDDINGS_MAX_MEMORY_MB: '16' })).toThrow(/EMBEDDINGS_MAX_MEMORY_MB/);
    expect(() => loadConfig({ EMBEDDINGS_BATCH_SIZE: '0' })).toThrow(/EMBEDDINGS_BATCH_SIZE/);
  });
});

describe('SEARCH_MEANING_MIN and SEARCH_MEANING_MARGIN', () => {
  it("are unset by default (the embedder's own floor applies), read when set, refused out of range", () => {
    expect(loadConfig({})).toMatchObject({ searchMeaningMin: undefined, searchMeaningMargin: undefined });
    expect(loadConfig({ SEARCH_MEANING_MIN: '0.42', SEARCH_MEANING_MARGIN: '0.1' })).toMatchObject({ searchMeaningMin: 0.42, searchMeaningMargin: 0.1 });
    expect(loadConfig({ SEARCH_MEANING_MIN: '-1' }).searchMeaningMin).toBe(-1);
    expect(() => loadConfig({ SEARCH_MEANING_MIN: '1.5' })).toThrow(/SEARCH_MEANING_MIN must be a number from -1 to 1, got "1.5"/);
    expect(() => loadConfig({ SEARCH_MEANING_MARGIN: 'wide' })).toThrow(/SEARCH_MEANING_MARGIN must be a number from 0 to 2/);
  });
});

describe('BACKUP_DIR, BACKUP_INTERVAL_HOURS and BACKUP_KEEP', () => {
  it('are off by default; a day and seven backups once BACKUP_DIR is set; fractions of an hour allowed', () => {
    expect(loadConfig({}).backups).toEqual({ dir: undefined, intervalMs: 24 * 3_600_000, keep: 7 });
    expect(loadConfig({ BACKUP_DIR: '/srv/backups', BACKUP_INTERVAL_HOURS: '0.25', BACKUP_KEEP: '30' }).backups).toEqual({ dir: '/srv/backups', intervalMs: 900_000, keep: 30 });
  });

  it('refuse numbers out of range and a BACKUP_DIR inside DATA_DIR, with the setting named', () => {
    expect(() => loadConfig({ BACKUP_INTERVAL_HOURS: '0' })).toThrow(/BACKUP_INTERVAL_HOURS must be a number from 0.0001 to 8760, got "0"/);
    expect(() => loadConfig({ BACKUP_KEEP: '0' })).toThrow(/BACKUP_KEEP must be a whole number from 1 to 10000/);
    expect(() => loadConfig({ DATA_DIR: '/srv/hearth', BACKUP_DIR: '/srv/hearth/backups' })).toThrow(/BACKUP_DIR \/srv\/hearth\/backups is inside DATA_DIR \/srv\/hearth/);
    expect(() => loadConfig({ DATA_DIR: '/srv/hearth', BACKUP_DIR: '/srv/hearth' })).toThrow(/BACKUP_DIR/);
    expect(loadConfig({ DATA_DIR: '/srv/hearth', BACKUP_DIR: '/srv/hearth-backups' }).backups.dir).toBe('/srv/hearth-backups');
  });
});

describe('MEMORY_DUPLICATE_COSINE', () => {
  it('is unset by default (duplicates by text only), read when set, refused out of range', () => {
    expect(loadConfig({}).memoryDuplicateCosine).toBeUndefined();
    expect(loadConfig({ MEMORY_DUPLICATE_COSINE: '0.97' }).memoryDuplicateCosine).toBe(0.97);
    expect(() => loadConfig({ MEMORY_DUPLICATE_COSINE: '1.2' })).toThrow(/MEMORY_DUPLICATE_COSINE must be a number from 0 to 1, got "1.2"/);
  });
});
