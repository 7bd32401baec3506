import { PageHeader } from '../components/ui';
import { Accounts } from './connections/accounts';
import { Connectors } from './connections/connectors';
import { Services } from './connections/services';
import { TryRequest } from './connections/try-request';

/** Connections: the accounts Hearth acts on for the owner, and the services it can call. */
export function ConnectionsPage() {
  return (
    <>
      <PageHeader title="Connections" />
      <Accounts />
      <Services />
      <Connectors />
      <TryRequest />
    </>
  );
}
