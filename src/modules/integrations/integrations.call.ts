/**
 * Sending one call upstream with the owner's credential: the address checked first, the
 * credential added, one retry with a renewed OAuth token after a 401, every call audited, and
 * the answer shaped with the secret scrubbed out.
 */
import { AppError } from '../../http/errors.js';
import type { OutboundClient, OutboundResponse } from '../../http/outbound.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { CallCredential } from './integrations.credentials.js';
import {
  refuseHearthTokens,
  secretForms,
  shapeResponse,
  targetUrl,
  withCredential,
  type Credential,
  type ShapedResponse,
  type UpstreamCall,
} from './integrations.engine.js';
import type { ResolvedService } from './integrations.resolve.js';

export interface SenderDeps {
  outbound: Pick<OutboundClient, 'request'>;
  audit: Pick<AuditService, 'record'>;
  credentialFor: (ownerId: string, service: ResolvedService) => Promise<CallCredential>;
}

export function createSender(deps: SenderDeps) {
  const { outbound, audit, credentialFor } = deps;

  /** Sends a call with the credential and answers it shaped; redirects are handed back, not followed. */
  async function send(
    ownerId: string,
    service: ResolvedService,
    call: UpstreamCall,
    audited: { actor: AuditActor; via: 'execute' | 'proxy' | 'passthrough'; method?: string },
  ): Promise<ShapedResponse> {
    // The address is checked before any credential is fetched.
    targetUrl(service.baseUrl, call, { placement: 'none' });
    refuseHearthTokens(call);
    const credential = await credentialFor(ownerId, service);
    const secrets = new Set(secretForms(credential.secret, credential.placement));
    const once = (cred: Credential): Promise<OutboundResponse> => {
      const url = targetUrl(service.baseUrl, call, cred);
      return outbound.request({
        method: call.method,
        url: url.toString(),
        headers: withCredential({ ...service.defaultHeaders, ...call.headers }, cred),
        ...(call.body !== undefined ? { body: call.body } : {}),
        followRedirects: false,
      });
    };
    const pathOnly = call.path.split('?')[0];
    const record = (outcome: 'success' | 'failure', details: Record<string, unknown>) =>
      audit.record(audited.actor, {
        action: 'service.call',
        outcome,
        targetType: 'service',
        targetId: service.id,
        details: {
          via: audited.via,
          source: service.source,
          ...(audited.method ? { method: audited.method } : {}),
          httpMethod: call.method,
          path: pathOnly,
          credential: credential.source,
          ...(credential.vaultTokenId ? { vaultTokenId: credential.vaultTokenId } : {}),
          ...details,
        },
      });
    let response: OutboundResponse;
    try {
      response = await once(credential);
      if (response.status === 401 && credential.renew && credential.secret) {
        const renewed = await credential.renew(credential.secret);
        if (renewed) {
          for (const form of secretForms(renewed, 'bearer')) secrets.add(form);
          response = await once({ ...credential, secret: renewed });
        }
      }
    } catch (error) {
      await record('failure', { error: error instanceof AppError ? error.code : 'INTERNAL_ERROR' });
      throw error;
    }
    await record('success', { status: response.status });
    return shapeResponse(response, [...secrets].sort((a, b) => b.length - a.length));
  }

  return send;
}
