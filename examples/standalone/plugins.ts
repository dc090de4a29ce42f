// The plugins the standalone instance runs. Every process of one instance (web, streaming,
// worker, and anything that drains its queue) must run the same ones: a job recorded by one
// process names a handler the others must have.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RookeryPlugin } from '../../core/plugin-host.ts';
import { cardsPlugin, frontPlugin, mediaPlugin, pollsPlugin, pushPlugin, scheduledPlugin } from '../../plugins/index.ts';

/** The key that seals the access tokens kept with Web Push subscriptions: made once, kept in a
 * file of its own (owner-only) next to the database and not in it, so that a copy of the
 * database alone does not give those tokens away. */
export function pushTokenKey(dataDir: string): string {
  const path = join(dataDir, 'push-token.key');
  if (!existsSync(path)) {
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process of the instance made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(path, 'utf8').trim();
}

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
