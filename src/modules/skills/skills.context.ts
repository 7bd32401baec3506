import { Type } from '@sinclair/typebox';
import { hasScope } from '../../http/access.js';
import type { ContextSection } from '../gateway/gateway.section.js';
import type { SkillsService } from './skills.service.js';

const SkillsContextSchema = Type.Array(
  Type.Object({ id: Type.Integer(), slug: Type.String(), name: Type.String(), description: Type.String(), category: Type.String() }),
  { description: 'The active skills (scope `skills`)' },
);

/**
 * The gateway context's `skills`: the owner's active skills, so an agent knows at the start of a
 * session which skills to use without a second call. Summaries only: an agent reads a skill's
 * SKILL.md from /skills/{id}/skill.md when it needs it. Only tokens that may read skills see it.
 */
export function createSkillsContextSection(skills: Pick<SkillsService, 'activeSummaries'>): ContextSection<typeof SkillsContextSchema> {
  return {
    name: 'skills',
    schema: SkillsContextSchema,
    tables: ['skills'],
    visibleTo: (principal) => hasScope(principal, 'skills'),
    load: (ownerId) => skills.activeSummaries(ownerId),
  };
}
