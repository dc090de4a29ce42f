// SQLite (3.53, as node:sqlite ships it) prepares a statement again each time a bare parameter
// is bound as its LIMIT, which cost about 4 µs per run on the bench machine, more than the read
// itself: the job claim and the relay list on every publish paid it. `LIMIT +?` is an expression
// and keeps the prepared plan. Every SQLite statement of the package's own is written that way.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';

const root = join(import.meta.dirname, '../../..');

/** The package's files that hold SQLite statements: the adapter and the plugins' SQLite stores. */
function sqliteSources(): string[] {
  const adapter = join(root, 'adapters/sqlite');
  const files = readdirSync(adapter, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(adapter, f));
  for (const plugin of readdirSync(join(root, 'plugins'))) {
    const storage = join(root, 'plugins', plugin, 'storage');
    let names: string[] = [];
    try {
      names = readdirSync(storage);
    } catch {
      continue;
    }
    files.push(...names.filter((n) => n.startsWith('sqlite') && n.endsWith('.ts')).map((n) => join(storage, n)));
  }
  return files;
}

t.test('no SQLite statement binds a bare parameter as its LIMIT', async (t) => {
  const files = sqliteSources();
  t.ok(files.some((f) => f.endsWith('adapters/sqlite/jobs.ts')) && files.some((f) => f.endsWith('plugins/federation/storage/sqlite.ts')), 'the adapter and the plugin stores are read');
  const bare = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\bLIMIT\s+\?/i.test(line) ? [`${relative(root, file)}:${i + 1}`] : [])),
  );
  t.strictSame(bare, [], 'write LIMIT +? instead');
  t.ok(files.some((f) => /\bLIMIT \+\?/.test(readFileSync(f, 'utf8'))), 'the checked form is the one in use');
});
