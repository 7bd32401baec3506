import type { Static, TSchema } from '@sinclair/typebox';
import type { Principal } from '../../http/access.js';
import type { TableName } from '../../storage/derived-cache.js';

/**
 * One part of the gateway context. Each module that has something an agent should see at the
 * start of a session contributes a section, with the schema of its value beside the code that
 * loads it; the gateway itself knows none of them and imports no module.
 */
export interface ContextSection<S extends TSchema = TSchema> {
  /** The key of the section in `data`. */
  name: string;
  /** The section's value, as documented in the OpenAPI document and used to serialize it. */
  schema: S;
  /** Shown to every token (not optional in the schema); other sections depend on scopes. */
  always?: boolean;
  /**
   * Every table the section reads (including tables whose rows it names, like attached titles).
   * The gateway caches contexts on the embedded engine and serves a cached one only while none
   * of these tables has been written since.
   */
  tables: readonly TableName[];
  /** Whether this token may see the section at all; hidden sections are not even loaded. */
  visibleTo(principal: Principal): boolean;
  load(ownerId: string, principal: Principal): Promise<Static<S>>;
}
