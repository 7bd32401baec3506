import { PageHeader } from '../components/ui';

export function AgentsPage() {
  return <PageHeader title="Agents and tokens" />;
}
