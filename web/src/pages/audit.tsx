import { PageHeader } from '../components/ui';

export function AuditPage() {
  return <PageHeader title="Audit log" />;
}
