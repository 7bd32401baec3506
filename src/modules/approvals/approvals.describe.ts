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
      // The pass-through, the one GET in this class: a method an RPC-style service takes as a write.
      if (input.method === 'GET') return `${who} send GET ${quote(input.path.split('?')[0]!.slice(`/api/v1/services/${params.service ?? ''}`.length))} to the service${target}`;
      if (input.path.endsWith('/proxy')) return `${who} send ${quote(field(body, 'method'))} ${quote(field(body, 'path'))} to the service${target}`;
      if (input.path.endsWith('/execute')) return `${who} call the method ${quote(field(body, 'method'))}${target}`;
      if (input.path.startsWith('/api/v1/oauth/disconnect/')) return `${who} disconnect the account of ${params.service ?? ''}`;
      if (input.method === 'DELETE') return `${who} delete the connector ${params.id ?? ''}`;
      if (input.method === 'PUT') return `${who} change the connector ${params.id ?? ''}${field(body, 'baseUrl') === undefined ? '' : ` to call ${quote(field(body, 'baseUrl'))}`}`;
      return `${who} create the connector ${quote(field(body, 'name'))} for ${quote(field(body, 'baseUrl'))}`;
    }
    case 'memory.write':
      return params.id ? `${who} change the memory entry ${params.id}` : `${who} add a memory entry`;
    case 'memory.delete':
      return params.id ? `${who} delete the memory entry ${params.id}` : `${who} delete every memory entry`;
    case 'knowledge.write':
      if (params.id) return `${who} change the knowledge-base document ${params.id}`;
      if (input.path.endsWith('/upsert')) return `${who} create or overwrite the knowledge-base document titled ${quote(field(body, 'title'))}`;
      return input.path.endsWith('/upload') ? `${who} upload a knowledge-base document` : `${who} add the knowledge-base document ${quote(field(body, 'title'))}`;
    case 'identity.write':
      return input.path.endsWith('/preferences') ? `${who} change the preferences` : `${who} change the identity`;
    case 'personas.write':
      return params.id ? `${who} change the persona ${params.id} (${input.method} ${input.path.split('?')[0]})` : `${who} create the persona ${quote(field(body, 'name'))}`;
    case 'personas.delete':
      return `${who} delete the persona ${params.id ?? ''}`;
    case 'skills.write':
      return params.id ? `${who} change the skill ${params.id} (${input.method} ${input.path.split('?')[0]})` : `${who} create the skill ${quote(field(body, 'name'))}`;
    case 'skills.delete':
      return `${who} delete the skill ${params.id ?? ''}`;
    case 'chat.delete':
      return `${who} delete the conversation ${params.id ?? ''}`;
    case 'marketplace.write':
      if (input.path.endsWith('/install')) return `${who} install the marketplace listing ${params.id ?? ''} into the account`;
      if (input.path.endsWith('/rate')) return `${who} rate the marketplace listing ${params.id ?? ''}`;
      if (input.method === 'DELETE') return `${who} delete the marketplace listing ${params.id ?? ''}`;
      return params.id ? `${who} change the marketplace listing ${params.id}` : `${who} publish ${quote(field(body, 'type'))} ${quote(field(body, 'refId'))} on the marketplace as ${quote(field(body, 'title'))}`;
    case 'knowledge.delete':
      return `${who} delete the knowledge-base document ${params.id ?? ''}`;
    case 'vault.write':
      return input.method === 'DELETE' ? `${who} delete the vault token ${params.id ?? ''}` : `${who} store a vault token named ${quote(field(body, 'name'))}`;
  }
}
