import type { Kysely } from 'kysely';
import { AppError, notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/storage.js';
import type { Database, PersonasTable } from '../../storage/tables.js';
import type { PersonasRepo } from './personas.repo.js';
import type { ChangePublisher } from '../events/events.changes.js';
import { SOUL_CONTENT_MAX_BYTES, type Persona } from './personas.schemas.js';

export function toPersona(row: PersonasTable): Persona {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    soul_content: row.soul_content,
    active: row.active === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function checkSoulSize(soulContent: string | undefined): void {
  if (soulContent !== undefined && Buffer.byteLength(soulContent, 'utf8') > SOUL_CONTENT_MAX_BYTES) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `soul_content is ${Buffer.byteLength(soulContent, 'utf8')} bytes; the limit is ${SOUL_CONTENT_MAX_BYTES} bytes (64 KiB). Shorten it, or move reference material into knowledge-base documents attached to the persona`,
    );
  }
}

/**
 * On PostgreSQL two activations of one owner running at once can both clear the old active
 * persona and then collide on the one-active index (23505), or meet as a serialization
 * failure or deadlock. Each such transaction changed nothing, so it is safe to run again.
 */
function isActivationCollision(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return isUniqueViolation(error) || code === '40001' || code === '40P01';
}

// Each colliding round lets at least one activation through, so this covers that many
// simultaneous activations of one owner; the jitter spreads the retries out.
const ACTIVATION_ATTEMPTS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PersonasServiceOptions {
  db: Kysely<Database>;
  repo: PersonasRepo;
  /** Told after each successful write (MCP sessions list their resources again). */
  changes?: ChangePublisher | undefined;
}

export function createPersonasService(deps: PersonasServiceOptions) {
  const { db, repo } = deps;
  const changed = (ownerId: string) => deps.changes?.publish({ type: 'personas.changed', ownerId });

  async function requirePersona(ownerId: string, id: string): Promise<PersonasTable> {
    const row = await repo.get(ownerId, id);
    if (!row) throw notFound('Persona', id);
    return row;
  }

  async function activateOnce(ownerId: string, id: string): Promise<PersonasTable> {
    return db.transaction().execute(async (trx) => {
      const at = isoNow();
      // The old one first: the index allows one active row per owner at every moment.
      await repo.deactivateOthers(ownerId, id, at, trx);
      const row = await repo.update(ownerId, id, { active: 1, updated_at: at }, trx);
      // Thrown inside the transaction, so the deactivation above is rolled back too.
      if (!row) throw notFound('Persona', id);
      return row;
    });
  }

  return {
    async list(ownerId: string, query: { limit: number; cursor?: string | undefined }): Promise<{ personas: Persona[]; nextCursor: string | null }> {
      const rows = await repo.list(ownerId, { limit: query.limit + 1, cursor: query.cursor });
      const page = rows.slice(0, query.limit);
      return { personas: page.map(toPersona), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
    },

    async get(ownerId: string, id: string): Promise<Persona> {
      return toPersona(await requirePersona(ownerId, id));
    },

    /** The owner's active persona, or null when none is active (chat, gateway context). */
    async getActive(ownerId: string): Promise<Persona | null> {
      const row = await repo.getActive(ownerId);
      return row ? toPersona(row) : null;
    },

    /** A new persona starts inactive: activating is a separate, explicit step. */
    async create(ownerId: string, input: { name: string; soul_content: string; description?: string | undefined }): Promise<Persona> {
      checkSoulSize(input.soul_content);
      const at = isoNow();
      const row: PersonasTable = {
        id: newId('per'),
        owner_id: ownerId,
        name: input.name,
        description: input.description ?? '',
        soul_content: input.soul_content,
        active: 0,
        created_at: at,
        updated_at: at,
      };
      await repo.insert(row);
      changed(ownerId);
      return toPersona(row);
    },

    async update(
      ownerId: string,
      id: string,
      input: { name?: string | undefined; description?: string | undefined; soul_content?: string | undefined },
    ): Promise<Persona> {
      checkSoulSize(input.soul_content);
      const changes: Parameters<PersonasRepo['update']>[2] = { updated_at: isoNow() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.soul_content !== undefined) changes.soul_content = input.soul_content;
      const row = await repo.update(ownerId, id, changes);
      if (!row) throw notFound('Persona', id);
      changed(ownerId);
      return toPersona(row);
    },

    /** Deleting the active persona leaves none active; its attachments go with it. */
    async delete(ownerId: string, id: string): Promise<{ id: string; deleted: true }> {
      if (!(await repo.delete(ownerId, id))) throw notFound('Persona', id);
      changed(ownerId);
      return { id, deleted: true };
    },

    /** Makes this the owner's only active persona, switching atomically from the previous one. */
    async activate(ownerId: string, id: string): Promise<Persona> {
      for (let attempt = 1; ; attempt++) {
        try {
          const row = await activateOnce(ownerId, id);
          changed(ownerId);
          return toPersona(row);
        } catch (error) {
          if (!isActivationCollision(error)) throw error;
          if (attempt >= ACTIVATION_ATTEMPTS) {
            throw new AppError('CONFLICT', `Persona ${id} could not be activated: too many activations of this account ran at once. Try again`);
          }
          await sleep(Math.random() * 10 * attempt);
        }
      }
    },

    /** Leaves the owner with no active persona if this one was it; chat then runs without persona. */
    async deactivate(ownerId: string, id: string): Promise<Persona> {
      const row = await repo.update(ownerId, id, { active: 0, updated_at: isoNow() });
      if (!row) throw notFound('Persona', id);
      changed(ownerId);
      return toPersona(row);
    },
  };
}

export type PersonasService = ReturnType<typeof createPersonasService>;
