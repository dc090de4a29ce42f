export { storageContract } from './storage-contract.ts';
export type { ContractTest, OpenStore, StoreHandle } from './storage-contract.ts';
export { queueContract } from './queue-contract.ts';
export type { OpenQueue, QueueHandle } from './queue-contract.ts';
