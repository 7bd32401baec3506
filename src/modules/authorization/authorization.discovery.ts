import type { Static } from '@sinclair/typebox';
import { SCOPE_NAMES } from '../permissions/permissions.scopes.js';
import type { AuditActor, AuditService } from '../audit/audit.service.js';
import type { ClientDirectory } from './authorization.clients.js';
import type { AuthorizationProtocol } from './authorization.protocol.js';
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from './authorization.schemas.js';

export interface DiscoveryDeps {
  clients: Pick<ClientDirectory, 'register'>;
  audit: Pick<AuditService, 'record'>;
  protocol: Pick<AuthorizationProtocol, 'issuer' | 'mcpResource'>;
}

/** What a client finds before it asks the owner anything: the server's metadata, and registration. */
export function createDiscovery(deps: DiscoveryDeps) {
  const { clients, audit } = deps;
  const { issuer, mcpResource } = deps.protocol;

  return {
    /** RFC 7591 registration, recorded in the server's log (no owner is known yet). */
    async registerClient(body: Record<string, unknown>, actor: AuditActor) {
      const registered = await clients.register(body);
      await audit.record(
        { ...actor, ownerId: null, tokenId: null },
        { action: 'oauth.client_register', outcome: 'success', targetType: 'oauth_client', targetId: registered.client_id, details: { clientName: registered.client_name, redirectUris: registered.redirect_uris } },
      );
      return registered;
    },

    /** RFC 8414 authorization-server metadata. */
    metadata(): Static<typeof AuthorizationServerMetadata> {
      return {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        revocation_endpoint: `${issuer}/revoke`,
        scopes_supported: [...SCOPE_NAMES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        service_documentation: `${issuer}/llms.txt`,
      };
    },

    /** RFC 9728 protected-resource metadata of the MCP endpoint. */
    protectedResource(): Static<typeof ProtectedResourceMetadata> {
      return {
        resource: mcpResource,
        authorization_servers: [issuer],
        scopes_supported: [...SCOPE_NAMES],
        bearer_methods_supported: ['header'],
        resource_name: 'Hearth',
        resource_documentation: `${issuer}/llms.txt`,
      };
    },
  };
}
