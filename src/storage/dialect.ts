/**
 * The words storage code shares: which engine runs, and what a migration is told about it.
 * Kept apart from the migration list so that migrations, repositories and full-text search name
 * the engine without importing every migration (which import full-text search in turn).
 */
export type Dialect = 'sqlite' | 'postgres';

export interface MigrationContext {
  dialect: Dialect;
}
