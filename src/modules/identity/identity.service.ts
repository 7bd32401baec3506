import { hasScope, type Principal } from '../../http/access.js';
import { AppError, InputError } from '../../http/errors.js';
import { exceedsDepth, isJsonObject, mergePatch, type JsonObject } from '../../lib/json-merge-patch.js';
import { isoNow } from '../../lib/time.js';
import type { Executor } from '../../storage/columns.js';
import type { IdentityTables } from './identity.tables.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { documentOf, type OwnerDocumentRepo } from './identity.repo.js';

/** The largest stored identity or preferences document, as UTF-8 JSON. */
export const DOCUMENT_MAX_BYTES = 64 * 1024;
/** Deeper documents are refused: merging and serialising recurse once per level. */
export const DOCUMENT_MAX_DEPTH = 32;

export type IdentitySectionName = 'professional' | 'availability';

/** Who may read what of the identity: the public profile, and each section on its own. */
export function mayReadProfile(principal: Principal): boolean {
  return hasScope(principal, 'read') || hasScope(principal, 'identity');
}

export function mayReadSection(principal: Principal, section: IdentitySectionName): boolean {
  return hasScope(principal, section) || hasScope(principal, 'identity');
}

/**
 * The identity as `principal` may see it: the profile fields with `read`, each section with
 * its own scope, everything with `identity`. Keys the token may not read are absent.
 */
export function identityFor(identity: JsonObject, principal: Principal): JsonObject {
  const { professional, availability, ...profile } = identity;
  const visible: JsonObject = mayReadProfile(principal) ? profile : {};
  if (mayReadSection(principal, 'professional')) visible.professional = professional ?? {};
  if (mayReadSection(principal, 'availability')) visible.availability = availability ?? {};
  return visible;
}


/** Sections are always objects on the way out, also after a patch deleted them with null. */
function withSections(document: JsonObject): JsonObject {
  const { professional, availability } = document;
  return {
    ...document,
    professional: isJsonObject(professional) ? professional : {},
    availability: isJsonObject(availability) ? availability : {},
  };
}

function checkPatch(patch: unknown): asserts patch is JsonObject {
  if (!isJsonObject(patch)) {
    throw new InputError('', 'must be object', 'The body must be a JSON object (a merge patch)');
  }
  if (exceedsDepth(patch, DOCUMENT_MAX_DEPTH)) {
    throw new InputError('', `must not nest deeper than ${DOCUMENT_MAX_DEPTH} levels`, `The body nests objects and arrays deeper than ${DOCUMENT_MAX_DEPTH} levels`);
  }
}

function serialize(document: JsonObject, what: string): string {
  const text = JSON.stringify(document);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > DOCUMENT_MAX_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The ${what} would be ${bytes} bytes of JSON; at most ${DOCUMENT_MAX_BYTES} are kept. Remove fields (set them to null) or shorten them`,
      { details: { bytes, maxBytes: DOCUMENT_MAX_BYTES } },
    );
  }
  return text;
}

export interface IdentityServiceOptions {
  db: Executor<IdentityTables>;
  identityRepo: OwnerDocumentRepo;
  preferencesRepo: OwnerDocumentRepo;
  accounts: Pick<AccountsService, 'getUser'>;
}

/** Identity and preferences: one JSON document per owner each, changed by merge patches. */
export function createIdentityService(deps: IdentityServiceOptions) {
  const { db, identityRepo, preferencesRepo, accounts } = deps;

  async function defaultIdentity(ownerId: string): Promise<JsonObject> {
    const user = await accounts.getUser(ownerId);
    return { ...(user.name ? { name: user.name } : {}), professional: {}, availability: {} };
  }

  async function applyPatch(repo: OwnerDocumentRepo, ownerId: string, patch: JsonObject, initial: JsonObject, what: string) {
    return db.transaction().execute(async (trx) => {
      const now = isoNow();
      const current = await repo.lock(ownerId, JSON.stringify(initial), now, trx);
      const merged = mergePatch(documentOf(current), patch) as JsonObject;
      // Throwing here rolls the transaction back, with the row made by lock() if it was new.
      await repo.save(ownerId, serialize(merged, what), now, trx);
      return merged;
    });
  }

  const service = {
    /** The whole identity; the default built from the account until the owner writes one. */
    async getIdentity(ownerId: string): Promise<JsonObject> {
      const stored = await identityRepo.get(ownerId);
      return withSections(stored === undefined ? await defaultIdentity(ownerId) : documentOf(stored));
    },

    async getIdentityFor(ownerId: string, principal: Principal): Promise<JsonObject> {
      return identityFor(await service.getIdentity(ownerId), principal);
    },

    async getSection(ownerId: string, section: IdentitySectionName): Promise<JsonObject> {
      // The default identity's sections are empty, so the account is not read for them.
      const stored = await identityRepo.get(ownerId);
      const value = stored === undefined ? undefined : documentOf(stored)[section];
      return isJsonObject(value) ? value : {};
    },

    async updateIdentity(ownerId: string, patch: unknown): Promise<JsonObject> {
      checkPatch(patch);
      // Read outside the transaction: on SQLite a query outside it (the account) would wait for it to end.
      const initial = (await identityRepo.get(ownerId)) === undefined ? await defaultIdentity(ownerId) : {};
      return withSections(await applyPatch(identityRepo, ownerId, patch, initial, 'identity'));
    },

    async getPreferences(ownerId: string): Promise<JsonObject> {
      const stored = await preferencesRepo.get(ownerId);
      return stored === undefined ? {} : documentOf(stored);
    },

    async updatePreferences(ownerId: string, patch: unknown): Promise<JsonObject> {
      checkPatch(patch);
      return applyPatch(preferencesRepo, ownerId, patch, {}, 'preferences');
    },
  };
  return service;
}

export type IdentityService = ReturnType<typeof createIdentityService>;
