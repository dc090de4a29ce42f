// The plugins the standalone instance runs. Every process of one instance (web, streaming,
// worker, and anything that drains its queue) must run the same ones: a job recorded by one
// process names a handler the others must have.

import type { RookeryPlugin } from '../../core/plugin-host.ts';
import { pushTokenKey } from './keys.ts';
import { cardsPlugin, frontPlugin, mediaPlugin, pollsPlugin, pushPlugin, scheduledPlugin } from '../../plugins/index.ts';

export function standalonePlugins(dataDir: string): RookeryPlugin[] {
  return [
    mediaPlugin({ directory: `${dataDir}/media` }),
    pollsPlugin(),
    scheduledPlugin(),
    cardsPlugin(),
    pushPlugin({ tokenKey: pushTokenKey(dataDir) }),
    frontPlugin(),
  ];
}
