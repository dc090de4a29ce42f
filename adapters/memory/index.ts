export { createMemoryStorage, type MemoryExtensionContext } from './storage.ts';
export { createInProcessBus } from './bus.ts';
