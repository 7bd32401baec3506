import { PageHeader } from '../components/ui';

export function PlanPage() {
  return <PageHeader title="Plan and usage" />;
}
