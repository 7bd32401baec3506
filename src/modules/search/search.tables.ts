import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

/** The rows of search's tables (migration 0032-search-vectors): storage shapes, not API shapes. */
export const searchTables = ownedTables({
  search_vectors: table({
    owner_id: column.text(),
    source: column.text(),
    item_id: column.text(),
    /** The embedder's model id: vectors of two models are never ranked together. */
    model: column.text(),
    dimensions: column.integer(),
    /** int8 codes, one byte per dimension. */
    codes: column.bytes(),
    /** codes × scale is the stored vector. */
    scale: column.real(),
    /** Hash of the text embedded: an item touched without its text changing is not embedded again. */
    text_hash: column.text(),
    /** The item's `updated_at` when embedded: differing, the vector is stale. */
    item_updated_at: column.text(),
    embedded_at: column.text(),
  }),
  search_claims: table({
    owner_id: column.text(),
    source: column.text(),
    item_id: column.text(),
    /** The node computing the vector. */
    claimed_by: column.text(),
    /** Past this instant (ISO), the claim is void and any node may take the item. */
    lease_until: column.text(),
  }),
});

export type SearchTables = TablesOf<typeof searchTables>;
export type SearchVectorsTable = SearchTables['search_vectors'];
export type SearchClaimsTable = SearchTables['search_claims'];
