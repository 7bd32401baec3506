import { PageHeader } from '../components/ui';

export function ProfilePage() {
  return <PageHeader title="Identity and preferences" />;
}
