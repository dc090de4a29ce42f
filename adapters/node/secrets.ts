// The Secrets port on node:crypto: CSPRNG tokens, SHA-256 digests, constant-time equality and
// scrypt password hashes (run on libuv's thread pool, so hashing does not block the loop).

import { createHash, createHmac, hash, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Secrets } from '../../core/domain/ports/secrets.ts';
import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

/** N=2^15, r=8, p=1: about 85 ms per hash here; needs maxmem above the 32 MiB default. */
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 128 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function equalBuffers(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface NodeSecretsOptions {
  /** scrypt cost for new hashes (a power of two). Lower it only in tests. */
  scryptN?: number;
  /** The key of sign() (Mastodon's SECRET_KEY_BASE): every process of one instance must have
   * the same. Default: a random key of this process, so what it signed is void after a restart
   * and in other processes (a sign-in form must then be loaded again). */
  secretKey?: string;
}

export const SECRETS_OPTIONS: OptionSpec = {
  scryptN: { what: 'a power of two from 1024 to 1048576', test: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1024 && v <= 1_048_576 && (v & (v - 1)) === 0 },
  secretKey: option.secret({ what: 'a string of 32 characters or more', test: (v) => typeof v === 'string' && v.length >= 32 }),
};

export function createNodeSecrets(options: NodeSecretsOptions = {}): Secrets {
  checkOptions('createNodeSecrets', options, SECRETS_OPTIONS);
  const params = { ...PARAMS, N: options.scryptN ?? PARAMS.N };
  const key = options.secretKey ?? randomBytes(32).toString('base64url');
  return {
    sign: (value) => createHmac('sha256', key).update(value, 'utf8').digest('base64url'),
    randomToken: (bytes = 32) => randomBytes(bytes).toString('base64url'),
    random16: () => randomInt(0, 0x10000),
    // The one-shot form: a token is hashed on every request that carries one.
    sha256: (value) => hash('sha256', value, 'base64url'),
    equal(a, b) {
      // Compare digests so that neither the lengths nor the contents leak through timing.
      const da = createHash('sha256').update(a, 'utf8').digest();
      const db = createHash('sha256').update(b, 'utf8').digest();
      return timingSafeEqual(da, db) && a.length === b.length;
    },
    async hashPassword(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, params, KEY_LENGTH);
      return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verifyPassword(password, stored) {
      const [scheme, n, r, p, salt, key] = stored.split('$');
      if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
      const expected = Buffer.from(key, 'base64url');
      const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem };
      const actual = await derive(password, Buffer.from(salt, 'base64url'), options, expected.length);
      return equalBuffers(actual, expected);
    },
  };
}
