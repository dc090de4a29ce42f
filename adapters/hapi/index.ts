export { rookeryHapi, toHapiPath, type RookeryHapiOptions } from './plugin.ts';
