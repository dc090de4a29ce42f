// examples/embed-mongodb-redis: the many-process app stays under 20 lines, and the stand-in
// declaration of rookery/redis (which another branch builds) does not outlive its arrival.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

t.test('the example is a whole app in under 20 lines', async (t) => {
  const source = readFileSync(join(root, 'examples/embed-mongodb-redis/server.ts'), 'utf8');
  const lines = source.trimEnd().split('\n');
  t.ok(lines.length < 20, `${lines.length} lines`);
  t.match(source, /from 'rookery\/mongodb'/, 'MongoDB storage');
  t.match(source, /from 'rookery\/redis'/, 'the Redis bus');
});

t.test('types/pending-rookery-redis.d.ts is deleted once adapters/redis lands', async (t) => {
  // Ambient declarations win over the real module, so a stale one would hide a mismatch.
  const real = existsSync(join(root, 'adapters/redis/index.ts'));
  const standIn = existsSync(join(root, 'types/pending-rookery-redis.d.ts'));
  t.equal(real && standIn, false, real ? 'adapters/redis exists: delete the stand-in declaration' : 'adapters/redis not merged yet: the stand-in types the example');
});
