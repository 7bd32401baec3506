import type { ActionClass } from '../../http/access.js';

/** A value of the body as words, cut short: a description is read at a glance. */
function quote(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return `\`${text.length > max ? `${text.slice(0, max)}…` : text}\``;
}

function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * What a held request would do, in words, for the owner who decides: `agent x wants to run
 * \`rm -rf build\` on device dev_…`. It names the command, the path, the recipient and the
 * subject, never a mail's text or a file's content (those stay sealed in the approval).
 */
export function describeRequest(input: { tokenName: string; actionClass: ActionClass; method: string; path: string; params: Record<string, string>; body: unknown }): string {
  const who = `${input.tokenName} wants to`;
  const { body, params } = input;
  const device = params.deviceId ? ` on device ${params.deviceId}` : '';
  switch (input.actionClass) {
    case 'devices.exec':
      return `${who} run ${quote(field(body, 'cmd'))}${device}`;
    case 'devices.write':
      return input.path.endsWith('/mkdir') ? `${who} make the folder ${quote(field(body, 'path'))}${device}` : `${who} write the file ${quote(field(body, 'path'))}${device}`;
    case 'devices.delete':
      return `${who} delete ${quote(new URLSearchParams(input.path.split('?')[1] ?? '').get('path') ?? field(body, 'path'))}${device}`;
    case 'mail.send':
      return `${who} send mail to ${quote(field(body, 'to'))} with the subject ${quote(field(body, 'subject'))}`;
    case 'mail.trash':
      return `${who} move the mail message ${params.messageId ?? ''} to the trash`;
    case 'files.upload':
      return `${who} upload the file ${quote(field(body, 'name'))} to the connected storage`;
    case 'files.delete':
      return `${who} delete the file ${params.fileId ?? ''} of the connected storage`;
    case 'services.write': {
      const target = params.service ? ` of ${params.service}` : '';
      if (input.path.endsWith('/proxy')) return `${who} send ${quote(field(body, 'method'))} ${quote(field(body, 'path'))} to the service${target}`;
      if (input.path.endsWith('/execute')) return `${who} call the method ${quote(field(body, 'method'))}${target}`;
      return `${who} create the connector ${quote(field(body, 'name'))} for ${quote(field(body, 'baseUrl'))}`;
    }
    case 'memory.delete':
      return params.id ? `${who} delete the memory entry ${params.id}` : `${who} delete every memory entry`;
    case 'knowledge.delete':
      return `${who} delete the knowledge-base document ${params.id ?? ''}`;
    case 'vault.write':
      return input.method === 'DELETE' ? `${who} delete the vault token ${params.id ?? ''}` : `${who} store a vault token named ${quote(field(body, 'name'))}`;
  }
}
