export { storageContract } from './storage-contract.ts';
export type { ContractTest, OpenStore, StoreHandle } from './storage-contract.ts';
export { queueContract } from './queue-contract.ts';
export type { OpenQueue, QueueHandle } from './queue-contract.ts';
// What a plugin's own storage contract is written with: the runner and helpers of the storage
// contract, and the fixtures that make model values.
export { contractRunner, count, idsOf, must, rejectsConflict } from './storage-contract.ts';
export * from './fixtures.ts';
