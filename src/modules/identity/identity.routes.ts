import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.js';
import { inRequestPart } from '../../http/errors.js';
import {
  IdentityPatchBody,
  IdentityResponse,
  IdentitySectionResponse,
  PreferencesPatchBody,
  PreferencesResponse,
} from './identity.schemas.js';
import type { IdentityService } from './identity.service.js';

export function identityRoutes(deps: { identity: IdentityService }): FastifyPluginAsyncTypebox {
  const { identity } = deps;
  return async (app) => {
    const tags = ['identity'];

    app.get(
      '/api/v1/identity',
      {
        config: { access: access.scope('read', 'identity') },
        schema: {
          operationId: 'getIdentity',
          summary: "The owner's public profile, with the professional and availability sections this token may read",
          tags,
          response: { 200: IdentityResponse },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return { data: await identity.getIdentityFor(principal.ownerId, principal) };
      },
    );

    app.get(
      '/api/v1/identity/professional',
      {
        config: { access: access.scope('professional', 'identity') },
        schema: {
          operationId: 'getProfessionalIdentity',
          summary: 'The professional section of the identity',
          tags,
          response: { 200: IdentitySectionResponse },
        },
      },
      async (request) => ({ data: await identity.getSection(principalOf(request).ownerId, 'professional') }),
    );

    app.get(
      '/api/v1/identity/availability',
      {
        config: { access: access.scope('availability', 'identity') },
        schema: {
          operationId: 'getAvailabilityIdentity',
          summary: 'The availability section of the identity',
          tags,
          response: { 200: IdentitySectionResponse },
        },
      },
      async (request) => ({ data: await identity.getSection(principalOf(request).ownerId, 'availability') }),
    );

    app.put(
      '/api/v1/identity',
      {
        config: { access: access.scope('identity'), actionClass: 'identity.write' },
        schema: {
          operationId: 'updateIdentity',
          summary: 'Change the identity with a JSON Merge Patch; answers the whole document',
          tags,
          body: IdentityPatchBody,
          response: { 200: IdentityResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', identity.updateIdentity(principalOf(request).ownerId, request.body)) }),
    );

    app.get(
      '/api/v1/preferences',
      {
        config: { access: access.scope('identity') },
        schema: {
          operationId: 'getPreferences',
          summary: "The owner's preferences: a free JSON object",
          tags: ['preferences'],
          response: { 200: PreferencesResponse },
        },
      },
      async (request) => ({ data: await identity.getPreferences(principalOf(request).ownerId) }),
    );

    app.put(
      '/api/v1/preferences',
      {
        config: { access: access.scope('identity'), actionClass: 'identity.write' },
        schema: {
          operationId: 'updatePreferences',
          summary: 'Change the preferences with a JSON Merge Patch; answers the whole object',
          tags: ['preferences'],
          body: PreferencesPatchBody,
          response: { 200: PreferencesResponse },
        },
      },
      async (request) => ({ data: await inRequestPart('body', identity.updatePreferences(principalOf(request).ownerId, request.body)) }),
    );
  };
}
