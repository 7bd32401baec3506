import { PageHeader } from '../components/ui';

export function ConnectionsPage() {
  return <PageHeader title="Connections" />;
}
