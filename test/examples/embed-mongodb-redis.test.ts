// examples/embed-mongodb-redis: the many-process app stays under 20 lines.

import { readFileSync } from 'node:fs';
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
