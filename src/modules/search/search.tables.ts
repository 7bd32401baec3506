/** The rows of search's tables (migration 0032-search-vectors): storage shapes, not API shapes. */
export interface SearchVectorsTable {
  owner_id: string;
  source: string;
  item_id: string;
  /** The embedder's model id: vectors of two models are never ranked together. */
  model: string;
  dimensions: number;
  /** int8 codes, one byte per dimension. */
  codes: Uint8Array;
  /** codes × scale is the stored vector. */
  scale: number;
  /** Hash of the text embedded: an item touched without its text changing is not embedded again. */
  text_hash: string;
  /** The item's `updated_at` when embedded: differing, the vector is stale. */
  item_updated_at: string;
  embedded_at: string;
}

export interface SearchClaimsTable {
  owner_id: string;
  source: string;
  item_id: string;
  /** The node computing the vector. */
  claimed_by: string;
  /** Past this instant (ISO), the claim is void and any node may take the item. */
  lease_until: string;
}

export interface SearchTables {
  search_vectors: SearchVectorsTable;
  search_claims: SearchClaimsTable;
}
