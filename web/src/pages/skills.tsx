import { PageHeader } from '../components/ui';

export function SkillsPage() {
  return <PageHeader title="Skills" />;
}
