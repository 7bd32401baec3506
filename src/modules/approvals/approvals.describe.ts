import type { ActionClass } from '../../http/access.js';
import { LIMITS } from '../../shared/afp.protocol.js';
import type { HeldField } from './approvals.schemas.js';

/**
 * The approval display rule. The owner approves what the words say, so the words are made only
 * from what the route acts on once validated (its path parameters and its validated body, the
 * defaults filled in), they name every field that changes the effect, and nothing in them is
 * hidden or cut without saying so: control characters, invisible characters and runs of spaces
 * are written out, and a value too long for one line ends with how much is left out. The whole
 * request is always there to open (`GET /api/v1/approvals/{id}`, see `heldFields`).
 */

/** The most characters of one value the one-line description shows; the rest is counted, not hidden. */
export const DESCRIPTION_VALUE_MAX = 300;

/** A run of this many spaces or more is written as `␠×N`: padding is how a tail is pushed out of sight. */
const SPACE_RUN = 3;

/**
 * Characters that print nothing, or print as something else: controls, format characters
 * (bidirectional overrides, zero-width joiners), separators other than the plain space, private
 * use, unassigned code points and lone surrogates; letters and symbols that render blank (the
 * Hangul fillers, the Braille blank), and combining marks, which draw over the characters before
 * them; and the two characters the rendering itself uses (`` ` `` quotes a value, `␠` counts
 * spaces), so that no value can imitate the rendering.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{M}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u1160\u3164\uffa0\u2800\u2420`\\]/u;

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\', '`': '\\`' };

function escapeChar(char: string): string {
  const named = ESCAPES[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * `text` as visible pieces, each standing for `length` characters of the original: a plain
 * character, an escape (`\n`, `\x1b`, `\u{202e}`) or a run of spaces (`␠×200`). Cutting
 * between pieces never leaves half an escape.
 */
function pieces(text: string): Array<{ shown: string; length: number }> {
  const out: Array<{ shown: string; length: number }> = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      let end = i;
      while (text[end] === ' ') end++;
      const run = end - i;
      out.push(run >= SPACE_RUN ? { shown: `␠×${run}`, length: run } : { shown: ' '.repeat(run), length: run });
      i = end;
      continue;
    }
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    out.push({ shown: HIDDEN.test(char) ? escapeChar(char) : char, length: char.length });
    i += char.length;
  }
  return out;
}

/** `text` with everything that would not show written out (see HIDDEN), uncut. */
export function visible(text: string): string {
  return pieces(text)
    .map((piece) => piece.shown)
    .join('');
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * A value quoted for the one-line description: made visible, and when longer than `max`
 * shown characters, cut with how many characters of the value are left out.
 */
export function quote(value: unknown, max = DESCRIPTION_VALUE_MAX): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const all = pieces(text);
  let shown = '';
  let used = 0;
  for (const piece of all) {
    if (shown.length + piece.shown.length > max) {
      return `\`${shown}\`… (${count(text.length - used)} more characters; open the request to see all)`;
    }
    shown += piece.shown;
    used += piece.length;
  }
  return `\`${shown}\``;
}

/** An id from the path: bare when it is made of URL-safe characters only (as ids are), quoted otherwise. */
function id(value: string | undefined): string {
  return value !== undefined && /^[A-Za-z0-9._~-]{1,200}$/.test(value) ? value : quote(value ?? '');
}

function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The size of file content as the route will write it: base64 decoded, text as UTF-8. */
export function contentBytes(content: unknown, encoding: unknown): number {
  if (typeof content !== 'string') return 0;
  return encoding === 'base64' ? Buffer.from(content, 'base64').length : Buffer.byteLength(content, 'utf8');
}

const bytes = (n: number) => `${count(n)} byte${n === 1 ? '' : 's'}`;
const characters = (value: unknown) => {
  const n = typeof value === 'string' ? value.length : JSON.stringify(value ?? null).length;
  return `${count(n)} character${n === 1 ? '' : 's'}`;
};

/**
 * A body sent on to a service, by its size: like a mail's text, it is the payload rather than
 * the call, and the description is stored in the clear while the body is sealed.
 */
const payload = (sent: unknown) => (sent === undefined ? ', no body' : `, a body of ${characters(sent)} (open the request to read it)`);

/**
 * Every field of a body, written out (a long text shown by its size, to be read in the request):
 * for the classes whose routes change a record, what changes is the whole body.
 */
function fieldsOf(body: unknown, secrets: readonly string[] = []): string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return given(body) ? quote(body) : 'no fields';
  const parts = Object.entries(body as Record<string, unknown>).map(([name, value]) => {
    if (secrets.includes(name)) return `${name} (a secret, not shown)`;
    if (typeof value === 'string' && value.length > DESCRIPTION_VALUE_MAX) return `${name} (${characters(value)}; open the request to read it)`;
    return `${name} ${quote(value)}`;
  });
  return parts.length > 0 ? parts.join(', ') : 'no fields';
}

/** Which calls of an API pass as reads (with services:read and no policy): its style decides. */
function apiStyleOf(body: unknown): string {
  return field(body, 'apiStyle') === 'rpc'
    ? `RPC-style: only the GETs of ${quote(field(body, 'readMethods') ?? [])} read, any other call writes`
    : 'REST: every GET reads';
}

/**
 * A memory write, led by the text it would remember (the owner decides on what the agent would
 * know, so the text itself is shown, up to the usual cut, rather than its size), then every other
 * field; replacing entries and marking one replaced are said in words.
 */
function describeMemoryWrite(who: string, entryId: string | undefined, body: unknown): string {
  const rest = body && typeof body === 'object' ? Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([name]) => name !== 'content')) : {};
  const others = Object.keys(rest).length > 0 ? `, with ${fieldsOf(rest)}` : '';
  const content = field(body, 'content');
  if (entryId === undefined) return `${who} add to memory the text ${quote(content ?? '')}${others}`;
  const by = field(body, 'supersededBy');
  if (typeof by === 'string') return `${who} mark the memory entry ${id(entryId)} as replaced by the entry ${id(by)}`;
  if (typeof content === 'string') return `${who} change the memory entry ${id(entryId)} to the text ${quote(content)}${others}`;
  return `${who} change the memory entry ${id(entryId)}: ${fieldsOf(body)}`;
}

export interface DescribeInput {
  tokenName: string;
  actionClass: ActionClass;
  method: string;
  /** The route's operationId: which route of the class it is (a class may span several). */
  operationId: string | null;
  /** The route's path parameters, as the router decoded them. */
  params: Record<string, string>;
  /**
   * The address as it will run (a `token` query parameter removed). Read only by the route whose
   * address is what it acts on (the pass-through); every other route is described from its
   * parameters and body, never its query.
   */
  url: string;
  /** The validated body, defaults filled in: exactly what the route reads. */
  body: unknown;
}

/**
 * What a held request will do, in words, for the owner who decides: one case per action class,
 * each naming every field of its routes that changes the effect. A mail's text, a file's
 * content and a body sent on to a service are named by their size only (the owner opens the
 * request to read them): the description is stored in the clear, the body sealed.
 */
export function describeRequest(input: DescribeInput): string {
  // A token's name may come from an agent (a handshake's agentId): written out like any value.
  const who = `${visible(input.tokenName)} wants to`;
  const { body, params } = input;
  const device = params.deviceId ? ` on device ${id(params.deviceId)}` : '';
  switch (input.actionClass) {
    case 'devices.exec': {
      const cwd = field(body, 'cwd');
      const where = given(cwd) ? `in the folder ${quote(cwd)}` : "in the device's root folder";
      return `${who} run ${quote(field(body, 'cmd'))}${device}, ${where}, stopped after ${count(Number(field(body, 'timeout') ?? LIMITS.execDefaultTimeoutMs))} ms`;
    }
    case 'devices.write': {
      if (input.operationId === 'afpMkdir') {
        const parents = field(body, 'recursive') === false ? 'its parent folder must exist' : 'with any missing parent folders';
        return `${who} make the folder ${quote(field(body, 'path'))}${device}, ${parents}`;
      }
      const size = contentBytes(field(body, 'content'), field(body, 'encoding'));
      return `${who} write ${bytes(size)} (sent as ${String(field(body, 'encoding') ?? 'utf8')}) to the file ${quote(field(body, 'path'))}${device}, replacing it if it exists`;
    }
    case 'devices.delete': {
      const recursive = field(body, 'recursive') === true ? ', and everything in it if it is a folder (recursive)' : ' (a folder only if it is empty)';
      return `${who} delete ${quote(field(body, 'path'))}${device}${recursive}`;
    }
    case 'mail.send': {
      const copies = (['cc', 'bcc'] as const).filter((name) => given(field(body, name))).map((name) => `, ${name} ${quote(field(body, name))}`);
      return `${who} send mail to ${quote(field(body, 'to'))}${copies.join('')}, with the subject ${quote(field(body, 'subject'))} and a text of ${characters(field(body, 'body'))}`;
    }
    case 'mail.trash':
      return `${who} move the mail message ${id(params.messageId)} to the trash`;
    case 'files.upload': {
      const folder = given(field(body, 'folderId')) ? `the folder ${quote(field(body, 'folderId'))}` : 'the top folder';
      const size = contentBytes(field(body, 'content'), field(body, 'encoding'));
      return `${who} upload the file ${quote(field(body, 'name'))} (${bytes(size)}, ${quote(field(body, 'mimeType'))}, sent as ${String(field(body, 'encoding') ?? 'utf8')}) to ${folder} of the connected storage`;
    }
    case 'files.delete':
      return `${who} delete the file ${id(params.fileId)} of the connected storage`;
    case 'services.write':
      return describeServicesWrite(who, input);
    case 'memory.write':
      return describeMemoryWrite(who, params.id, body);
    case 'memory.delete':
      return params.id ? `${who} delete the memory entry ${id(params.id)}` : `${who} delete every memory entry`;
    case 'knowledge.write':
      if (input.operationId === 'uploadKBDocument') return `${who} upload a file as a knowledge-base document`;
      if (input.operationId === 'upsertKBDocument') return `${who} create or overwrite the knowledge-base document with the title ${quote(field(body, 'title'))}: ${fieldsOf(body)}`;
      if (params.id) return `${who} change the knowledge-base document ${id(params.id)}: ${fieldsOf(body)}`;
      return `${who} add a knowledge-base document: ${fieldsOf(body)}`;
    case 'identity.write':
      return `${who} change ${input.operationId === 'updatePreferences' ? 'the preferences' : 'the identity'}: ${fieldsOf(body)}`;
    case 'personas.write':
    case 'skills.write': {
      const what = input.actionClass === 'skills.write' ? 'skill' : 'persona';
      if (input.operationId === 'putSkillMarkdown') return `${who} replace the skill ${id(params.id)} with a SKILL.md file`;
      if (!params.id) return `${who} create a ${what}: ${fieldsOf(body)}`;
      const verb = /^(activate|deactivate)/.exec(input.operationId ?? '')?.[1];
      if (verb) return `${who} ${verb} the ${what} ${id(params.id)}`;
      if (params.docId) return `${who} detach the document ${id(params.docId)} from the ${what} ${id(params.id)}`;
      if (params.skillId) return `${who} detach the skill ${id(params.skillId)} from the persona ${id(params.id)}`;
      if (/^attach/.test(input.operationId ?? '')) return `${who} attach to the ${what} ${id(params.id)}: ${fieldsOf(body)}`;
      return `${who} change the ${what} ${id(params.id)}: ${fieldsOf(body)}`;
    }
    case 'personas.delete':
      return `${who} delete the persona ${id(params.id)}`;
    case 'skills.delete':
      return `${who} delete the skill ${id(params.id)}`;
    case 'chat.delete':
      return `${who} delete the conversation ${id(params.id)}`;
    case 'marketplace.write':
      if (input.operationId === 'installMarketplaceListing') return `${who} install the marketplace listing ${id(params.id)} into the account${given(body) ? `: ${fieldsOf(body)}` : ''}`;
      if (input.operationId === 'rateMarketplaceListing') return `${who} rate the marketplace listing ${id(params.id)}: ${fieldsOf(body)}`;
      if (input.operationId === 'deleteMarketplaceListing') return `${who} delete the marketplace listing ${id(params.id)}`;
      if (params.id) return `${who} change the marketplace listing ${id(params.id)}: ${fieldsOf(body)}`;
      return `${who} publish ${quote(field(body, 'type'))} ${quote(field(body, 'refId'))} on the public marketplace: ${fieldsOf(body)}`;
    case 'knowledge.delete':
      return `${who} delete the knowledge-base document ${id(params.id)}`;
    case 'vault.write': {
      if (input.method === 'DELETE') return `${who} delete the vault token ${id(params.id)}`;
      const discovery = field(body, 'discoverApi') === true ? `, and discover its API (${apiStyleOf(body)})` : '';
      return `${who} store a vault token named ${quote(field(body, 'name'))} for the service ${quote(field(body, 'service'))} (${quote(field(body, 'websiteUrl'))})${discovery}`;
    }
  }
}

/** The class that spans the most routes: calls to connected services, connectors, disconnecting an account. */
function describeServicesWrite(who: string, input: DescribeInput): string {
  const { body, params } = input;
  const service = params.service ? ` of the service ${quote(params.service)}` : '';
  // The pass-through, the one GET of the class (a method an RPC-style service takes as a
  // write): what it calls is its own address, path and query string as received.
  if (input.operationId === 'callConnectedService') {
    const prefix = `/api/v1/services/${encodeURIComponent(params.service ?? '')}`;
    const target = input.url.startsWith(prefix) ? input.url.slice(prefix.length) : input.url;
    return `${who} send GET ${quote(target)} to the API${service}`;
  }
  if (input.operationId === 'oauthDisconnect') return `${who} disconnect the connected account${service}, deleting its stored tokens`;
  if (input.operationId === 'deleteConnector') return `${who} delete the connector ${id(params.id)}`;
  if (input.operationId === 'updateConnector') return `${who} change the connector ${id(params.id)}: ${fieldsOf(body, ['password'])}`;
  if (input.operationId === 'proxyServiceRequest') {
    const extras = (['query', 'headers'] as const).filter((name) => field(body, name) !== undefined).map((name) => `, ${name} ${quote(field(body, name))}`);
    return `${who} send ${quote(field(body, 'method'))} ${quote(field(body, 'path'))} to the API${service}${extras.join('')}${payload(field(body, 'body'))}`;
  }
  if (input.operationId === 'executeServiceMethod') {
    const { body: sent, ...params } = (field(body, 'params') ?? {}) as Record<string, unknown>;
    return `${who} call the method ${quote(field(body, 'method'))}${service} with the params ${quote(params)}${sent === undefined ? '' : payload(sent)}`;
  }
  const auth = [`authentication ${quote(field(body, 'authType'))}`];
  for (const [name, words] of [
    ['vaultTokenId', 'with the vault token'],
    ['headerName', 'in the header'],
    ['queryParam', 'in the query parameter'],
  ] as const) {
    if (given(field(body, name))) auth.push(`${words} ${quote(field(body, name))}`);
  }
  if (given(field(body, 'password'))) auth.push('with a password');
  auth.push(apiStyleOf(body));
  return `${who} create the connector ${quote(field(body, 'name'))} for ${quote(field(body, 'baseUrl'))} (${auth.join(', ')})`;
}

/**
 * How the fields of a class's bodies are shown when the request is opened: `secrets` never
 * (only their length), `contents` as their decoded size (the body's `encoding` says how they are
 * encoded) and a preview. A class not listed here shows every field as it is.
 */
const BODY_HINTS: Partial<Record<ActionClass, { secrets?: string[]; contents?: string[] }>> = {
  'devices.write': { contents: ['content'] },
  'files.upload': { contents: ['content'] },
  'services.write': { secrets: ['password'] },
  'vault.write': { secrets: ['token'] },
};

/** A string longer than this is shown as its length and its first PREVIEW_CHARS characters. */
export const FIELD_VALUE_MAX = 4096;
export const PREVIEW_CHARS = 500;
/** The most fields one request shows; the rest are counted (`omittedFields`). */
export const MAX_FIELDS = 1000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const childName = (parent: string, key: string) => (IDENTIFIER.test(key) ? (parent ? `${parent}.${key}` : key) : `${parent}[${JSON.stringify(key)}]`);

/**
 * Every field of a held body, flattened (`params.query.page`, `to`, `headers["x-trace"]`), for
 * the owner to read before deciding: each value whole, except secrets (length only), file
 * contents (decoded size and a preview) and strings over FIELD_VALUE_MAX characters (length and
 * a preview), each marked so. Answers the fields and how many were left out past MAX_FIELDS.
 */
export function heldFields(actionClass: ActionClass, body: unknown): { fields: HeldField[]; omitted: number } {
  const hints = BODY_HINTS[actionClass] ?? {};
  const fields: HeldField[] = [];
  let omitted = 0;
  const push = (item: HeldField) => {
    if (fields.length < MAX_FIELDS) fields.push(item);
    else omitted++;
  };
  const leaf = (name: string, value: unknown, top: Record<string, unknown> | null) => {
    const plain = { name, secret: false, truncated: false, length: null, bytes: null };
    if (typeof value === 'string') {
      const topName = top && name in top ? name : null;
      if (topName && hints.secrets?.includes(topName)) {
        push({ ...plain, type: 'string', value: null, secret: true, length: value.length });
        return;
      }
      const isContent = topName !== null && (hints.contents?.includes(topName) ?? false);
      const cut = isContent || value.length > FIELD_VALUE_MAX;
      push({
        ...plain,
        type: 'string',
        value: cut ? value.slice(0, PREVIEW_CHARS) : value,
        truncated: cut && value.length > PREVIEW_CHARS,
        length: value.length,
        bytes: isContent ? contentBytes(value, top?.encoding) : null,
      });
      return;
    }
    if (typeof value === 'number' || typeof value === 'boolean') push({ ...plain, type: typeof value as 'number' | 'boolean', value });
    else push({ ...plain, type: Array.isArray(value) ? 'array' : value === null ? 'null' : 'object', value: null, length: value === null ? null : 0 });
  };
  const walk = (name: string, value: unknown, top: Record<string, unknown> | null) => {
    if (value !== null && typeof value === 'object') {
      const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [`${name}[${i}]`, item]) : Object.entries(value).map(([key, item]) => [childName(name, key), item]);
      if (entries.length === 0) return leaf(name, value, top);
      for (const [child, item] of entries) walk(child, item, null);
      return;
    }
    leaf(name, value, top);
  };
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body)) walk(childName('', key), value, body as Record<string, unknown>);
  } else if (body !== undefined) walk('', body, null);
  return { fields, omitted };
}
