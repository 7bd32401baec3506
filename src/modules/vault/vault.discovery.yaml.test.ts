// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
/**
 * YAML is parsed in a worker process (about 0.3 s and a process each, in slots shared with
 * uploads): only text that can be an OpenAPI or Swagger document is sent there.
 */
import { parse as parseYamlText, stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { OutboundResponse } from '../../http/outbound.js';
import { AppError } from '../../http/errors.js';
import { createApiDiscovery, looksLikeOpenApiYaml } from './vault.discovery.js';

const ORIGIN = 'https://api.example';

function response(url: string, status: number, type: string, text: string): OutboundResponse {
  const body = Buffer.from(text);
  return { status, url, headers: { 'content-type': type }, body, text: () => text, json: <T>() => JSON.parse(text) as T };
}

/** A site answering `pages` (path → [content type, text]) and 404 elsewhere; counts the YAML sent to the worker. */
function discoveryOf(pages: Record<string, [string, string]>) {
  const sentToWorker: string[] = [];
  const discovery = createApiDiscovery({
    timeoutMs: 1000,
    outbound: {
      async request({ url }: { url: string }) {
        const path = new URL(url).pathname;
        const page = pages[path];
        if (!page) throw new AppError('UPSTREAM_ERROR', `404 ${path}`);
        return response(url, 200, page[0], page[1]);
      },
    } as never,
    parsing: {
      async parseYaml(_ownerId: string, text: string) {
        sentToWorker.push(text);
        return parseYamlText(text) as unknown;
      },
    },
  });
  return { discovery, sentToWorker };
}

const spec = {
  openapi: '3.0.3',
  info: { title: 'Example API', description: 'Does things.' },
  servers: [{ url: `${ORIGIN}/v1` }],
  paths: { '/things': { get: { operationId: 'listThings', summary: 'List things' } } },
};

describe('looksLikeOpenApiYaml', () => {
  it('accepts a top-level openapi or swagger key, quoted or not, anywhere in the document', () => {
    expect(looksLikeOpenApiYaml(toYaml(spec))).toBe(true);
    expect(looksLikeOpenApiYaml('# An API\n---\ninfo:\n  title: x\nswagger: "2.0"\n')).toBe(true);
    expect(looksLikeOpenApiYaml('"openapi": 3.1.0\r\npaths: {}\r\n')).toBe(true);
    expect(looksLikeOpenApiYaml("'swagger' : '2.0'")).toBe(true);
  });

  it('refuses text without one: prose, indented or prefixed keys, other documents', () => {
    expect(looksLikeOpenApiYaml('Welcome to our API. See openapi: the docs.')).toBe(false);
    expect(looksLikeOpenApiYaml('info:\n  openapi: 3.0.0\n')).toBe(false);
    expect(looksLikeOpenApiYaml('x-openapi: 3.0.0\nopenapiVersion: 3\n')).toBe(false);
    expect(looksLikeOpenApiYaml('User-agent: *\nDisallow: /\n')).toBe(false);
    expect(looksLikeOpenApiYaml('')).toBe(false);
  });
});

describe('discovery sends only OpenAPI-looking YAML to the worker', () => {
  it('plain text answers (the page, well-known paths answering text) are not parsed as YAML', async () => {
    const { discovery, sentToWorker } = discoveryOf({
      '/': ['text/plain', 'Welcome to the Example API.\nkey: value\n'],
      '/openapi.json': ['text/plain', 'Not here.'],
      '/v3/api-docs': ['application/octet-stream', 'title: a yaml file that is not an API description\n'],
    });
    const api = await discovery.discover(`${ORIGIN}/`, 'owner-1');
    expect(sentToWorker).toEqual([]);
    expect(api.documents).toEqual([]);
  });

  it('a YAML OpenAPI document still is', async () => {
    const yaml = toYaml(spec);
    const { discovery, sentToWorker } = discoveryOf({
      '/': ['text/plain', 'Welcome to the Example API.'],
      '/openapi.yaml': ['application/yaml', yaml],
    });
    const api = await discovery.discover(`${ORIGIN}/`, 'owner-1');
    expect(sentToWorker).toEqual([yaml]);
    expect(api.documents).toEqual([{ kind: 'openapi', url: `${ORIGIN}/openapi.yaml` }]);
    expect(api.operations).toEqual([{ operationId: 'listThings', method: 'GET', path: '/things', summary: 'List things' }]);
  });
});
