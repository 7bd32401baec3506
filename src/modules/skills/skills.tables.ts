import { column, ownedTables, table, type TablesOf } from '../../storage/columns.js';

export const skillsTables = ownedTables({
  skills: table(
    {
      id: column.integer().generated(),
      owner_id: column.text(),
      slug: column.text(),
      /** `slug` lower-cased: unique per owner. */
      slug_key: column.text(),
      name: column.text(),
      description: column.text(),
      category: column.text(),
      category_key: column.text(),
      script_content: column.text(),
      active: column.boolean(),
      /** JSON object: where the skill came from (created here, installed from a listing, …). */
      origin: column.json(),
      created_at: column.time(),
      updated_at: column.time(),
    },
    { fullText: { columns: ['name', 'description', 'category'], sqliteRowKey: 'id' } },
  ),
});

export type SkillsTables = TablesOf<typeof skillsTables>;
export type SkillsTable = SkillsTables['skills'];
