// The plugins the standalone instance runs. Every process of one instance (web, streaming,
// worker, and anything that drains its queue) must run the same ones: a job recorded by one
// process names a handler the others must have.

import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { pushTokenKey } from './keys.ts';
import { cardsPlugin, federationPlugin, frontPlugin, mediaPlugin, pollsPlugin, pushPlugin, scheduledPlugin } from '../../plugins/index.ts';
import type { StandaloneSettings } from './env.ts';

export function standalonePlugins(dataDir: string, federation: StandaloneSettings['federation'] = { enabled: true, allowPrivateAddress: false }): RookeryPlugin[] {
  const { allowPrivateAddress, authorizedFetch = false, firstKnock } = federation;
  return [
    mediaPlugin({ directory: `${dataDir}/media` }),
    pollsPlugin(),
    scheduledPlugin(),
    // The same rule for preview cards and for federation: private addresses only in tests.
    cardsPlugin(allowPrivateAddress ? { fetch: { allowPrivateAddresses: true } } : {}),
    pushPlugin({ tokenKey: pushTokenKey(dataDir) }),
    frontPlugin(),
    ...(federation.enabled ? [federationPlugin({ allowPrivateAddress, authorizedFetch, ...(firstKnock ? { firstKnock } : {}) })] : []),
  ];
}
