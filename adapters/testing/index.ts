export { storageContract } from './storage-contract.ts';
export type { ContractTest, OpenStore, StoreHandle } from './storage-contract.ts';
