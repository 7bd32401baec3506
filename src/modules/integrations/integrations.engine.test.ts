// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import { loadCatalogue } from './integrations.catalogue.js';
import { callerHeaders, methodCall, safeRelativePath, secretForms, shapeResponse, targetUrl, withCredential } from './integrations.engine.js';

const catalogue = loadCatalogue();
const method = (service: string, name: string) => {
  const found = catalogue.get(service)?.methods.find((m) => m.name === name);
  if (!found) throw new Error(`no ${service}.${name}`);
  return found;
};

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('safeRelativePath', () => {
  it('accepts relative paths, with or without the leading slash, and keeps the query apart', () => {
    expect(safeRelativePath('/user/repos?per_page=5')).toEqual({ pathname: '/user/repos', search: 'per_page=5' });
    expect(safeRelativePath('user')).toEqual({ pathname: '/user', search: '' });
    expect(safeRelativePath('/files/a%2Fb.txt')).toEqual({ pathname: '/files/a%2Fb.txt', search: '' });
    expect(safeRelativePath('/v1/a..b/c.d')).toEqual({ pathname: '/v1/a..b/c.d', search: '' });
  });

  it.each([
    'https://evil.example/x',
    'http://127.0.0.1/x',
    'javascript:alert(1)',
    '//evil.example/x',
    '/..',
    '/a/../../admin',
    '../admin',
    '/a/./b',
    '/a/%2e%2e/b',
    '/a/%2E%2E/b',
    '/a/.%2e/b',
    '/a/%252e%252e/b',
    '/a/%2e%2e%2fb',
    '/a\\..\\b',
    '/%2f%2fevil.example/x',
    '/a b',
    '/a\nb',
    '/a#frag',
    '/a/%zz',
  ])('refuses %j', (path) => {
    const error = refusal(() => safeRelativePath(path, 'body.path'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ field: 'body.path' })]);
  });
});

describe('targetUrl', () => {
  it('joins under the base path and keeps the caller query as written', () => {
    const url = targetUrl('https://api.example.com/v2', { path: '/items/a%2Fb?q=a+b&x=%20', query: [['page', '2']] }, { placement: 'none' });
    expect(url.toString()).toBe('https://api.example.com/v2/items/a%2Fb?q=a+b&x=%20&page=2');
  });

  it('puts the credential parameter last and drops any the caller sent with that name', () => {
    const url = targetUrl(
      'https://api.example.com',
      { path: '/w?appid=attacker&APPID=x&q=1', query: [['appid', 'mine'], ['units', 'metric']] },
      { placement: 'query', name: 'appid', secret: 's3cret' },
    );
    expect(url.search).toBe('?q=1&units=metric&appid=s3cret');
  });
});

describe('withCredential', () => {
  it('sets the credential last, replacing a header of the same name in any case', () => {
    expect(withCredential({ Authorization: 'Bearer attacker', accept: 'x' }, { placement: 'bearer', secret: 'tok' })).toEqual({ accept: 'x', authorization: 'Bearer tok' });
    expect(withCredential({ 'X-Api-Key': 'attacker' }, { placement: 'header', name: 'X-Api-Key', secret: 'k' })).toEqual({ 'x-api-key': 'k' });
    expect(withCredential({}, { placement: 'basic', secret: 'user:pw' })).toEqual({ authorization: `Basic ${Buffer.from('user:pw').toString('base64')}` });
    expect(withCredential({ a: '1' }, { placement: 'none' })).toEqual({ a: '1' });
  });
});

describe('methodCall builds real catalogue methods', () => {
  it('GitHub createIssue: placeholders fill the path, the rest is the JSON body', () => {
    const call = methodCall(method('github', 'createIssue'), { owner: 'octo cat', repo: 'hello/world', title: 'Bug', labels: ['bug'] });
    expect(call).toEqual({
      method: 'POST',
      path: '/repos/octo%20cat/hello%2Fworld/issues',
      query: [],
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bug', labels: ['bug'] }),
    });
  });

  it('GitHub listMyRepos: a GET sends its params as the query', () => {
    const call = methodCall(method('github', 'listMyRepos'), { per_page: 5, sort: 'updated' });
    expect(call).toEqual({ method: 'GET', path: '/user/repos', query: [['per_page', '5'], ['sort', 'updated']], headers: {} });
  });

  it('Gmail listMessages: arrays repeat the parameter', () => {
    const call = methodCall(method('google', 'gmail.listMessages'), { q: 'is:unread', labelIds: ['INBOX', 'UNREAD'] });
    expect(call.query).toEqual([['q', 'is:unread'], ['labelIds', 'INBOX'], ['labelIds', 'UNREAD']]);
  });

  it('Calendar createEvent: queryParams go to the query, the rest to the body', () => {
    const call = methodCall(method('google', 'calendar.createEvent'), {
      calendarId: 'primary',
      sendUpdates: 'all',
      summary: 'Lunch',
      start: { dateTime: '2030-01-01T12:00:00Z' },
      end: { dateTime: '2030-01-01T13:00:00Z' },
    });
    expect(call.path).toBe('/calendar/v3/calendars/primary/events');
    expect(call.query).toEqual([['sendUpdates', 'all']]);
    expect(JSON.parse(call.body!)).toEqual({ summary: 'Lunch', start: { dateTime: '2030-01-01T12:00:00Z' }, end: { dateTime: '2030-01-01T13:00:00Z' } });
  });

  it('Linear createIssue: the template holds the query and the params go under variables.input', () => {
    const call = methodCall(method('linear', 'createIssue'), { teamId: 't1', title: 'Fix it' });
    const body = JSON.parse(call.body!);
    expect(call).toMatchObject({ method: 'POST', path: '/graphql' });
    expect(body.query).toMatch(/^mutation IssueCreate\(\$input: IssueCreateInput!\)/);
    expect(body.variables).toEqual({ input: { teamId: 't1', title: 'Fix it' } });
  });

  it('Linear viewer: a template alone is the body', () => {
    expect(JSON.parse(methodCall(method('linear', 'viewer'), {}).body!)).toEqual({ query: 'query Viewer { viewer { id name email } }' });
  });

  it('Slack authTest: a POST without params has no body', () => {
    expect(methodCall(method('slack', 'authTest'), {})).toEqual({ method: 'POST', path: '/auth.test', query: [], headers: {}, body: undefined });
  });

  it.each(['..', '.', ''])('refuses the path value %j, which would leave the path', (value) => {
    const error = refusal(() => methodCall(method('github', 'getRepo'), { owner: 'a', repo: value }));
    expect(error.details).toEqual([expect.objectContaining({ field: 'params.repo' })]);
  });
});

describe('callerHeaders', () => {
  it('forwards allowed headers, lower-cased, and ignores transport headers', () => {
    expect(
      callerHeaders({ Accept: 'application/json', 'Notion-Version': '2025-09-03', 'X-Trace': 't', 'Content-Length': '5', 'User-Agent': 'me', 'If-None-Match': '"e"' }),
    ).toEqual({ accept: 'application/json', 'notion-version': '2025-09-03', 'x-trace': 't', 'if-none-match': '"e"' });
  });

  it.each([
    'Authorization',
    'authorization',
    'Cookie',
    'Host',
    'X-Api-Key',
    'Proxy-Authorization',
    'Proxy-Connection',
    'X-Forwarded-For',
    'X-Forwarded-Host',
    'Forwarded',
    'X-Real-IP',
    'X-Auth-Token',
    'X-Amz-Security-Token',
    'X-HTTP-Method-Override',
    'Private-Token',
    'Foo-Bar',
  ])('refuses %s', (name) => {
    const error = refusal(() => callerHeaders({ [name]: 'value' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ field: `headers.${name}` })]);
  });

  it("refuses the credential's own header whatever it is called", () => {
    expect(refusal(() => callerHeaders({ 'X-Custom-Auth-Header': 'x' }, 'x-custom-auth-header')).code).toBe('VALIDATION_ERROR');
    expect(refusal(() => callerHeaders({ 'X-Widget': 'x' }, 'X-Widget')).code).toBe('VALIDATION_ERROR');
  });

  it('refuses header values with line breaks', () => {
    expect(refusal(() => callerHeaders({ 'x-a': 'a\r\nb: c' })).code).toBe('VALIDATION_ERROR');
  });
});

describe('shapeResponse', () => {
  const secret = 'sk-live-1234567890/abc';
  const forms = secretForms(secret, 'bearer');

  it('keeps safe headers, drops Set-Cookie and credential-looking ones, and redacts every echo of the secret', () => {
    const body = Buffer.from(JSON.stringify({ seen: `Bearer ${secret}`, url: `https://x/?k=${encodeURIComponent(secret)}`, nested: { k: secret } }));
    const shaped = shapeResponse(
      {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'set-cookie': 'a=b',
          'x-session-token': 'nope',
          'x-echo': `Bearer ${secret}`,
          location: `https://x/?k=${encodeURIComponent(secret)}`,
          'x-ratelimit-remaining': '10',
          server: 'nginx',
          'content-length': '123',
        },
        body,
      },
      forms,
    );
    expect(shaped.headers).toEqual({
      'content-type': 'application/json',
      'x-echo': 'Bearer [REDACTED]',
      location: 'https://x/?k=[REDACTED]',
      'x-ratelimit-remaining': '10',
    });
    expect(shaped.encoding).toBe('json');
    expect(shaped.body).toEqual({ seen: 'Bearer [REDACTED]', url: 'https://x/?k=[REDACTED]', nested: { k: '[REDACTED]' } });
    expect(JSON.stringify(shaped)).not.toContain('1234567890');
  });

  it('answers text as text, binary as base64 and nothing as null', () => {
    expect(shapeResponse({ status: 200, headers: { 'content-type': 'text/csv' }, body: Buffer.from('a,b') }, [])).toMatchObject({ body: 'a,b', encoding: 'text' });
    const bytes = Buffer.from([0, 255, 1, 2]);
    expect(shapeResponse({ status: 200, headers: { 'content-type': 'image/png' }, body: bytes }, [])).toMatchObject({ body: bytes.toString('base64'), encoding: 'base64' });
    expect(shapeResponse({ status: 204, headers: {}, body: Buffer.alloc(0) }, [])).toMatchObject({ body: null, encoding: 'empty' });
    expect(shapeResponse({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{broken') }, [])).toMatchObject({
      body: '{broken',
      encoding: 'text',
    });
  });
});
