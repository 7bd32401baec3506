import { PageHeader } from '../components/ui';

export function DevicesPage() {
  return <PageHeader title="Devices" />;
}
