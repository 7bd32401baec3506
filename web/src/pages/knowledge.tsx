import { PageHeader } from '../components/ui';

export function KnowledgePage() {
  return <PageHeader title="Knowledge base" />;
}
