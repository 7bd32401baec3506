// @engine-independent: pure logic with no storage: what it checks cannot differ between engines
import { describe, expect, it } from 'vitest';
import { describeRequest, DESCRIPTION_VALUE_MAX, heldFields, MAX_FIELDS, quote, visible } from './approvals.describe.js';

const base = { tokenName: 'agent', method: 'POST', operationId: null, params: {}, url: '/api/v1/somewhere' };

describe('visible', () => {
  it('writes out what would not show, and what would imitate the rendering', () => {
    expect(visible('a\nb\tc\rd')).toBe('a\\nb\\tc\\rd');
    expect(visible('esc\u001b[2Jdel\u007f')).toBe('esc\\x1b[2Jdel\\x7f');
    expect(visible('abc\u202edcba\u200bz\u00a0y\u2028')).toBe('abc\\u{202e}dcba\\u{200b}z\\xa0y\\u{2028}');
    expect(visible(`ls${' '.repeat(200)}; rm -rf /`)).toBe('ls␠×200; rm -rf /');
    expect(visible('two  spaces')).toBe('two  spaces');
    // The rendering's own characters cannot be imitated.
    expect(visible('a`b\\n␠×9')).toBe('a\\`b\\\\n\\u{2420}×9');
    expect(visible('\ud800x')).toBe('\\u{d800}x');
    expect(visible('Grüße, 東京')).toBe('Grüße, 東京');
  });
});

describe('quote', () => {
  it('cuts a long value visibly, never in the middle of an escape', () => {
    expect(quote('short')).toBe('`short`');
    const long = 'x'.repeat(DESCRIPTION_VALUE_MAX + 2140);
    expect(quote(long)).toBe(`\`${'x'.repeat(DESCRIPTION_VALUE_MAX)}\`… (2,140 more characters; open the request to see all)`);
    const escapes = '\n'.repeat(DESCRIPTION_VALUE_MAX);
    expect(quote(escapes)).toBe(`\`${'\\n'.repeat(DESCRIPTION_VALUE_MAX / 2)}\`… (${DESCRIPTION_VALUE_MAX / 2} more characters; open the request to see all)`);
    expect(quote({ a: 1 })).toBe('`{"a":1}`');
  });
});

describe('describeRequest', () => {
  it('names every field that changes the effect', () => {
    expect(describeRequest({ ...base, actionClass: 'devices.delete', operationId: 'afpDelete', params: { deviceId: 'dev_1' }, body: { path: '/x', recursive: false } })).toBe(
      'agent wants to delete `/x` on device dev_1 (a folder only if it is empty)',
    );
    expect(describeRequest({ ...base, actionClass: 'devices.write', operationId: 'afpMkdir', params: { deviceId: 'dev_1' }, body: { path: '/x', recursive: false } })).toBe(
      'agent wants to make the folder `/x` on device dev_1, its parent folder must exist',
    );
    expect(
      describeRequest({ ...base, actionClass: 'files.upload', body: { name: 'a.pdf', content: 'AAEC', encoding: 'base64', mimeType: 'application/pdf', folderId: 'fld1' } }),
    ).toBe('agent wants to upload the file `a.pdf` (3 bytes, `application/pdf`, sent as base64) to the folder `fld1` of the connected storage');
    expect(
      describeRequest({ ...base, actionClass: 'services.write', operationId: 'proxyServiceRequest', params: { service: 'github' }, body: { method: 'DELETE', path: '/repos/a/b', query: { force: true }, headers: { 'x-trace': '1' } } }),
    ).toBe('agent wants to send `DELETE` `/repos/a/b` to the API of the service `github`, query `{"force":true}`, headers `{"x-trace":"1"}`, no body');
    expect(describeRequest({ ...base, actionClass: 'services.write', operationId: 'executeServiceMethod', params: { service: 'github' }, body: { method: 'request', params: { httpMethod: 'PUT', path: '/x' } } })).toBe(
      'agent wants to call the method `request` of the service `github` with the params `{"httpMethod":"PUT","path":"/x"}`',
    );
    expect(
      describeRequest({ ...base, actionClass: 'services.write', operationId: 'executeServiceMethod', params: { service: 'github' }, body: { method: 'request', params: { httpMethod: 'POST', path: '/x', body: { secret: 'text' } } } }),
    ).toBe('agent wants to call the method `request` of the service `github` with the params `{"httpMethod":"POST","path":"/x"}`, a body of 17 characters (open the request to read it)');
    expect(
      describeRequest({ ...base, actionClass: 'services.write', operationId: 'createConnector', body: { name: 'api', baseUrl: 'https://api.example', authType: 'header', vaultTokenId: 'vt_1', headerName: 'X-Key', password: 'hunter2' } }),
    ).toBe('agent wants to create the connector `api` for `https://api.example` (authentication `header`, with the vault token `vt_1`, in the header `X-Key`, with a password, REST: every GET reads)');
    const vault = describeRequest({ ...base, actionClass: 'vault.write', body: { name: 'gh', service: 'github', token: 'ghp_secret', websiteUrl: 'https://github.com', discoverApi: true } });
    expect(vault).toBe('agent wants to store a vault token named `gh` for the service `github` (`https://github.com`), and discover its API (REST: every GET reads)');
    expect(vault).not.toContain('ghp_secret');
    expect(describeRequest({ ...base, actionClass: 'memory.delete', method: 'DELETE', body: undefined })).toBe('agent wants to delete every memory entry');
  });

  it("writes out what would not show in the token's name", () => {
    expect(describeRequest({ ...base, tokenName: `helper${' '.repeat(40)}\nowner`, actionClass: 'memory.delete', method: 'DELETE', body: undefined })).toBe(
      'helper␠×40\\nowner wants to delete every memory entry',
    );
  });

  it('quotes a path id that is not plain', () => {
    expect(describeRequest({ ...base, actionClass: 'knowledge.delete', method: 'DELETE', params: { id: 'a b\n' }, body: undefined })).toBe(
      'agent wants to delete the knowledge-base document `a b\\n`',
    );
  });
});

describe('heldFields', () => {
  it('lists every field, secrets by length only, contents by size and preview', () => {
    const { fields, omitted } = heldFields('vault.write', { name: 'gh', token: 'ghp_secret', nested: { 'x-y': [1, null, {}], ok: true } });
    expect(omitted).toBe(0);
    expect(fields).toEqual([
      { name: 'name', type: 'string', value: 'gh', truncated: false, length: 2, bytes: null, secret: false },
      { name: 'token', type: 'string', value: null, truncated: false, length: 10, bytes: null, secret: true },
      { name: 'nested["x-y"][0]', type: 'number', value: 1, truncated: false, length: null, bytes: null, secret: false },
      { name: 'nested["x-y"][1]', type: 'null', value: null, truncated: false, length: null, bytes: null, secret: false },
      { name: 'nested["x-y"][2]', type: 'object', value: null, truncated: false, length: 0, bytes: null, secret: false },
      { name: 'nested.ok', type: 'boolean', value: true, truncated: false, length: null, bytes: null, secret: false },
    ]);
    expect(heldFields('services.write', { password: 'pw' }).fields[0]).toMatchObject({ secret: true, value: null });

    const content = 'é'.repeat(600);
    expect(heldFields('files.upload', { content, encoding: 'utf8' }).fields[0]).toEqual({
      name: 'content',
      type: 'string',
      value: 'é'.repeat(500),
      truncated: true,
      length: 600,
      bytes: 1200,
      secret: false,
    });
    const long = 'y'.repeat(5000);
    expect(heldFields('mail.send', { body: long }).fields[0]).toMatchObject({ value: 'y'.repeat(500), truncated: true, length: 5000, bytes: null });
    expect(heldFields('mail.send', { body: 'y'.repeat(4096) }).fields[0]).toMatchObject({ truncated: false, length: 4096 });
  });

  it('counts the fields past the limit', () => {
    const params = Object.fromEntries(Array.from({ length: MAX_FIELDS + 5 }, (_, i) => [`p${i}`, i]));
    const { fields, omitted } = heldFields('services.write', { method: 'm', params });
    expect(fields).toHaveLength(MAX_FIELDS);
    expect(omitted).toBe(6);
  });
});

describe('memory writes', () => {
  it('lead with the text the agent would have remembered, cut only past the usual length', () => {
    const memory = { ...base, actionClass: 'memory.write' as const, method: 'POST', operationId: 'createMemory', params: {} };
    expect(describeRequest({ ...memory, body: { content: 'Prefers tea\nto coffee' } })).toBe('agent wants to add to memory the text `Prefers tea\\nto coffee`');
    expect(describeRequest({ ...memory, body: { content: 'Moved to Lyon', kind: 'fact', supersedes: ['mem_0'] } })).toBe(
      'agent wants to add to memory the text `Moved to Lyon`, with kind `fact`, supersedes `["mem_0"]`',
    );
    const long = describeRequest({ ...memory, body: { content: 'y'.repeat(DESCRIPTION_VALUE_MAX + 40) } });
    expect(long).toBe(`agent wants to add to memory the text \`${'y'.repeat(DESCRIPTION_VALUE_MAX)}\`… (40 more characters; open the request to see all)`);
    const patch = { ...memory, method: 'PATCH', operationId: 'updateMemory', params: { id: 'mem_1' } };
    expect(describeRequest({ ...patch, body: { supersededBy: 'mem_2' } })).toBe('agent wants to mark the memory entry mem_1 as replaced by the entry mem_2');
    expect(describeRequest({ ...patch, body: { pinned: true } })).toBe('agent wants to change the memory entry mem_1: pinned `true`');
  });
});

describe('the classes whose routes change a record', () => {
  it('name every field the change sets, a long text by its size, a secret never', () => {
    const content = 'z'.repeat(DESCRIPTION_VALUE_MAX + 1);
    expect(describeRequest({ ...base, actionClass: 'memory.write', method: 'PATCH', operationId: 'updateMemory', params: { id: 'mem_1' }, body: { content: 'x', tags: ['a'] } })).toBe(
      'agent wants to change the memory entry mem_1 to the text `x`, with tags `["a"]`',
    );
    expect(describeRequest({ ...base, actionClass: 'knowledge.write', method: 'PUT', operationId: 'updateKBDocument', params: { id: 'kb_1' }, body: { content } })).toBe(
      `agent wants to change the knowledge-base document kb_1: content (${DESCRIPTION_VALUE_MAX + 1} characters; open the request to read it)`,
    );
    expect(describeRequest({ ...base, actionClass: 'services.write', method: 'PUT', operationId: 'updateConnector', params: { id: 'con_1' }, body: { baseUrl: 'https://evil.example', password: 'hunter2' } })).toBe(
      'agent wants to change the connector con_1: baseUrl `https://evil.example`, password (a secret, not shown)',
    );
    expect(describeRequest({ ...base, actionClass: 'personas.write', method: 'DELETE', operationId: 'detachPersonaSkill', params: { id: 'per_1', skillId: 'sk_1' }, body: undefined })).toBe(
      'agent wants to detach the skill sk_1 from the persona per_1',
    );
  });

  it("describes the pass-through from its address, query string included, and nothing else's", () => {
    expect(
      describeRequest({ ...base, actionClass: 'services.write', method: 'GET', operationId: 'callConnectedService', params: { service: 'slack' }, url: '/api/v1/services/slack/chat.postMessage?channel=C1&text=hi', body: undefined }),
    ).toBe('agent wants to send GET `/chat.postMessage?channel=C1&text=hi` to the API of the service `slack`');
  });

  it('names which calls of a stored or created API pass as reads', () => {
    const body = { name: 'n', service: 'slack', websiteUrl: 'https://slack.com', token: 'x', discoverApi: true, apiStyle: 'rpc', readMethods: ['chat.postMessage'] };
    expect(describeRequest({ ...base, actionClass: 'vault.write', body })).toBe(
      'agent wants to store a vault token named `n` for the service `slack` (`https://slack.com`), and discover its API (RPC-style: only the GETs of `["chat.postMessage"]` read, any other call writes)',
    );
  });

  it('writes out the characters that render blank and the marks drawn over others', () => {
    const padded = describeRequest({ ...base, actionClass: 'devices.exec', params: { deviceId: 'dev_1' }, body: { cmd: `ls${'\u3164'.repeat(200)}; rm -rf ~`, timeout: 1000 } });
    expect(padded).not.toContain('\u3164');
    expect(padded).toContain('ls\\u{3164}\\u{3164}');
    expect(padded).toMatch(/more characters; open the request to see all/);
    for (const blank of ['\u115f', '\u1160', '\uffa0', '\u2800', 'e\u0301']) expect(visible(blank)).not.toBe(blank);
  });
});
