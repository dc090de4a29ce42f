// The domain's federation operations (host.system.federation) as the incoming side uses them,
// named here once so that the listeners depend on this shape only (and a test may hand in
// another).

export type { FederationOperations as RemoteApi, RemoteAccountInput, RemoteStatusInput } from 'rookery/plugin-kit';
