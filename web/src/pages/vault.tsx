import { PageHeader } from '../components/ui';

export function VaultPage() {
  return <PageHeader title="Vault" />;
}
