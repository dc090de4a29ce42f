export type * from './storage.ts';
export { StorageConflict } from './storage.ts';
export type * from './bus.ts';
export type * from './clock.ts';
export type * from './ids.ts';
export type * from './secrets.ts';
export type * from './logger.ts';
export { silentLogger } from './logger.ts';
export type * from './counters.ts';
