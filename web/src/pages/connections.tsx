import { useState } from 'react';
import { PageHeader } from '../components/ui';
import { Accounts } from './connections/accounts';
import { Connectors } from './connections/connectors';
import { Services } from './connections/services';
import { TryRequest } from './connections/try-request';

/** Connections: the accounts Hearth acts on for the owner, and the services it can call. */
export function ConnectionsPage() {
  // A connector added or deleted is a service added or gone: the service lists read again.
  const [round, setRound] = useState(0);
  const changed = () => setRound((n) => n + 1);
  return (
    <>
      <PageHeader title="Connections" />
      <Accounts />
      <Services round={round} />
      <Connectors onChanged={changed} />
      <TryRequest round={round} />
    </>
  );
}
