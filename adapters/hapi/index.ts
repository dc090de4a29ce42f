export { rookeryHapi, toHapiPath, type RookeryHapiOptions } from './plugin.ts';
export type { HapiStreamingOptions } from './sse.ts';
