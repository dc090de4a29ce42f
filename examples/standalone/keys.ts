// Keys the standalone instance keeps in DATA_DIR, each in a file of its own (owner-only), made
// by whichever process of the instance needs it first and read by the others.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key in DATA_DIR/<name>, made now (`bytes` random bytes) if there is none yet. */
export function keyFile(dataDir: string, name: string, bytes: number): string {
  const path = join(dataDir, name);
  if (!existsSync(path)) {
    try {
      writeFileSync(path, `${randomBytes(bytes).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process of the instance made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(path, 'utf8').trim();
}

/** The key that signs what browsers hand back (the sign-in form's CSRF token): SECRET_KEY_BASE,
 * as Mastodon names it, else one made once and kept in DATA_DIR, so that a restart does not
 * void forms in flight. Every process of one instance must share it: on several machines, set
 * SECRET_KEY_BASE on each. */
export function secretKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const given = env['SECRET_KEY_BASE'];
  if (given !== undefined && given !== '') return given;
  return keyFile(dataDir, 'secret_key_base', 48);
}

/** The key that seals the access tokens kept with Web Push subscriptions: kept next to the
 * database and not in it, so that a copy of the database alone does not give those tokens away. */
export function pushTokenKey(dataDir: string): string {
  return keyFile(dataDir, 'push-token.key', 32);
}
