// The plugins the standalone instance runs. Every process of one instance (web, streaming,
// worker, and anything that drains its queue) must run the same ones: a job recorded by one
// process names a handler the others must have.

import type { StorageExtension } from '../../core/domain/ports/storage.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { pushTokenKey } from './keys.ts';
import { cardsPlugin, cardStorage, emojiPlugin, emojiStorage, federationPlugin, frontPlugin, mediaPlugin, mediaStorage, pollsPlugin, pollStorage, pushPlugin, pushStorage, scheduledPlugin, scheduledStorage } from '../../plugins/index.ts';
import { federationStorage } from '../../plugins/federation/index.ts';
import type { StandaloneSettings } from './env.ts';

export function standalonePlugins(dataDir: string, federation: StandaloneSettings['federation'] = { enabled: true, allowPrivateAddress: false }): RookeryPlugin[] {
  const { allowPrivateAddress, authorizedFetch = false, firstKnock } = federation;
  return [
    mediaPlugin({ directory: `${dataDir}/media` }),
    pollsPlugin(),
    emojiPlugin(),
    scheduledPlugin(),
    // The same rule for preview cards and for federation: private addresses only in tests.
    cardsPlugin(allowPrivateAddress ? { fetch: { allowPrivateAddresses: true } } : {}),
    pushPlugin({ tokenKey: pushTokenKey(dataDir) }),
    frontPlugin(),
    ...(federation.enabled ? [federationPlugin({ allowPrivateAddress, authorizedFetch, ...(firstKnock ? { firstKnock } : {}) })] : []),
  ];
}

/** The storage extensions of those plugins (federation's too, whether on or off): what `storage
 * copy` opens on both stores so that every plugin's tables exist there, without registering the
 * plugins (registering writes: the push plugin makes its keys). */
export const STANDALONE_STORAGES: readonly StorageExtension<unknown>[] = [mediaStorage, pollStorage, scheduledStorage, cardStorage, pushStorage, emojiStorage, federationStorage];
