// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import type { DiscoveredService } from '../vault/vault.service.js';
import { loadCatalogue } from './integrations.catalogue.js';
import { createIntegrationsService, DISCOVERED_VALIDATORS_MAX, type IntegrationsServiceDeps } from './integrations.service.js';

/** A discovered API with `count` operations, each with placeholder names of its own (as a remote document may have). */
function wideApi(count: number): DiscoveredService {
  return {
    vaultTokenId: 'vtk_test',
    service: 'wide',
    name: 'Wide',
    websiteUrl: 'https://wide.example',
    title: 'Wide',
    description: null,
    baseUrl: 'https://wide.example/api',
    authSchemes: [],
    documents: [],
    operationCount: count,
    operations: Array.from({ length: count }, (_, i) => ({ operationId: `op${i}`, method: 'GET', path: `/things/{thing${i}}/{part${i}}`, summary: null })),
    apiStyle: 'rest',
    readMethods: [],
  };
}

function servicesFor(api: DiscoveredService, discoveredValidatorsMax: number) {
  const deps = {
    catalogue: loadCatalogue(),
    outbound: { request: async () => Promise.reject(new Error('no upstream call is expected')) },
    connectors: { findByName: async () => undefined, all: async () => [] },
    vault: { discoveredServices: async () => [api] },
    oauth: {},
    audit: { record: async () => undefined },
    discoveredValidatorsMax,
  } as unknown as IntegrationsServiceDeps;
  return createIntegrationsService(deps);
}

const actor = { ownerId: 'usr_test', tokenId: null, ip: null, userAgent: null };

describe('validators of discovered operations', () => {
  it('security: are compiled on first call only, and at most a fixed number are kept', async () => {
    expect(DISCOVERED_VALIDATORS_MAX).toBe(256);
    const max = 10;
    const count = max + 15;
    const services = servicesFor(wideApi(count), max);
    // Listing the methods compiles nothing.
    expect(await services.methods('usr_test', 'wide')).toHaveLength(count + 1);
    expect(services.discoveredValidatorsKept()).toBe(0);

    // Each call validates its params (here: missing placeholders, so no upstream call is made).
    for (let i = 0; i < count; i++) {
      await expect(services.execute('usr_test', 'wide', { method: `op${i}`, params: {} }, actor)).rejects.toThrow(
        new RegExp(`params.thing${i} is required`),
      );
    }
    expect(services.discoveredValidatorsKept()).toBe(max);

    // An evicted validator is compiled again when needed, and still validates correctly.
    await expect(services.execute('usr_test', 'wide', { method: 'op0', params: { thing0: 'a', part0: 1, extra: true } }, actor)).rejects.toThrow(
      /params.extra is not a parameter of this method/,
    );
    expect(services.discoveredValidatorsKept()).toBe(max);
  });
});
