export { createMemoryStorage } from './storage.ts';
export { createInProcessBus } from './bus.ts';
