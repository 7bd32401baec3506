import { PageHeader } from '../components/ui';

export function MemoryPage() {
  return <PageHeader title="Memory" />;
}
