import { PageHeader } from '../components/ui';

export function PersonasPage() {
  return <PageHeader title="Personas" />;
}
