// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, CatalogueError, loadCatalogue } from './integrations.catalogue.js';

const raw = () => JSON.parse(readFileSync(new URL('./catalogue.json', import.meta.url), 'utf8'));

describe('the built-in catalogue', () => {
  const catalogue = loadCatalogue();

  it('holds the required services, each with real named methods', () => {
    const ids = catalogue.services.map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining(['google', 'microsoft', 'github', 'slack', 'notion', 'linear', 'openai']));
    for (const service of catalogue.services) {
      expect(service.methods.length, service.id).toBeGreaterThanOrEqual(3);
      expect(service.baseUrl).toMatch(/^https:\/\//);
    }
  });

  it.each([
    ['github', 'GET', '/user'],
    ['github', 'GET', '/user/repos'],
    ['github', 'POST', '/repos/{owner}/{repo}/issues'],
    ['slack', 'POST', '/chat.postMessage'],
    ['slack', 'GET', '/conversations.list'],
    ['notion', 'POST', '/v1/search'],
    ['linear', 'POST', '/graphql'],
    ['openai', 'GET', '/v1/models'],
    ['openai', 'POST', '/v1/chat/completions'],
    ['microsoft', 'GET', '/v1.0/me'],
    ['microsoft', 'GET', '/v1.0/me/messages'],
    ['google', 'GET', '/gmail/v1/users/me/messages'],
    ['google', 'GET', '/drive/v3/files'],
    ['google', 'GET', '/calendar/v3/calendars/{calendarId}/events'],
  ])('%s has %s %s', (id, httpMethod, path) => {
    expect(catalogue.get(id)!.methods).toEqual(expect.arrayContaining([expect.objectContaining({ httpMethod, path })]));
  });

  it('carries the headers the real APIs require', () => {
    expect(catalogue.get('notion')!.defaultHeaders).toEqual({ 'notion-version': '2022-06-28' });
    expect(catalogue.get('github')!.defaultHeaders).toMatchObject({ accept: 'application/vnd.github+json' });
    expect(catalogue.get('linear')!.auth).toEqual({ kind: 'header', headerName: 'Authorization' });
    expect(catalogue.get('google')!.auth).toEqual({ kind: 'oauth', provider: 'google' });
  });

  it('compiles every params schema in strict mode (start-up checks them; each compiles on first use)', () => {
    for (const service of catalogue.services) {
      for (const method of service.methods) expect(typeof method.validate, `${service.id}.${method.name}`).toBe('function');
    }
  });

  it('compiled each params schema once, and the validators work', () => {
    const createIssue = catalogue.get('github')!.methods.find((m) => m.name === 'createIssue')!;
    expect(createIssue.validate({ owner: 'a', repo: 'b', title: 't' })).toBe(true);
    expect(createIssue.validate({ owner: 'a', repo: 'b' })).toBe(false);
    expect(createIssue.validate({ owner: 'a', repo: 'b', title: 't', surprise: 1 })).toBe(false);
    const events = catalogue.get('google')!.methods.find((m) => m.name === 'calendar.listEvents')!;
    expect(events.validate({ calendarId: 'primary', timeMin: 'yesterday' })).toBe(false);
    expect(events.validate({ calendarId: 'primary', timeMin: '2030-01-01T00:00:00Z' })).toBe(true);
  });
});

describe('start-up validation refuses a broken catalogue', () => {
  const broken = (change: (file: any) => void) => {
    const file = raw();
    change(file);
    return () => buildCatalogue(file);
  };

  it.each([
    ['an unknown field', (f: any) => (f.services[0].surprise = 1)],
    ['a plain http base address', (f: any) => (f.services[0].baseUrl = 'http://api.example.com')],
    ['a duplicate service id', (f: any) => f.services.push(f.services[0])],
    ['an unknown category', (f: any) => (f.services[0].category = 'nope')],
    ['a duplicate method', (f: any) => f.services[0].methods.push(f.services[0].methods[0])],
    ['a method named request', (f: any) => (f.services[0].methods[0].name = 'request')],
    ['a typo in a params schema', (f: any) => (f.services[0].methods[0].params.propertiez = {})],
    ['a typo deep in a params schema', (f: any) => (f.services[0].methods[0].params.properties = { a: { type: 'array', items: { type: 'string', minLenght: 1 } } })],
    ['an unknown format', (f: any) => (f.services[0].methods[0].params.properties = { a: { type: 'string', format: 'colour' } })],
    ['a pattern that is not a regular expression', (f: any) => (f.services[0].methods[0].params.properties = { a: { type: 'string', pattern: '(' } })],
    ['a bound that is not a number', (f: any) => (f.services[0].methods[0].params.properties = { a: { type: 'string', minLength: 'one' } })],
    ['required that is not a list', (f: any) => (f.services[0].methods[0].params.required = 'owner')],
    ['an invalid params schema', (f: any) => (f.services[0].methods[0].params.properties = { a: { type: 'strin' } })],
    [
      'a path placeholder that is not a required param',
      (f: any) => {
        const m = f.services.find((s: any) => s.id === 'github').methods.find((x: any) => x.name === 'getRepo');
        m.params.required = ['owner'];
      },
    ],
    ['an unknown auth kind', (f: any) => (f.services[0].auth = { kind: 'magic' })],
    ['queryParams on a GET', (f: any) => (f.services.find((s: any) => s.id === 'github').methods[1].queryParams = ['page'])],
    ['an rpc service without read methods', (f: any) => delete f.services.find((s: any) => s.id === 'slack').readMethods],
    ['read methods on a REST service', (f: any) => (f.services.find((s: any) => s.id === 'github').readMethods = ['user'])],
    ['a read method with a leading slash', (f: any) => (f.services.find((s: any) => s.id === 'slack').readMethods = ['/conversations.list'])],
    ['an unknown API style', (f: any) => (f.services.find((s: any) => s.id === 'slack').apiStyle = 'soap')],
  ])('%s', (_what, change) => {
    expect(broken(change)).toThrow(CatalogueError);
  });
});
