// The built-in plugins stand on the package's public surface, exactly as a plugin written
// outside this repository would: a file of plugins/<name>/ imports files of its own folder,
// the package's exports (`rookery`, `rookery/plugin-kit`, `rookery/sqlite` …, as package.json
// exports them) and third-party packages; never core/ or adapters/ by path, never another plugin.
// plugins/index.ts, the barrel, may name every plugin.

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { sourceFiles, specifiers } from '../helpers/imports.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pluginsDir = join(root, 'plugins');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };

/** What is wrong with `specifier` in `file`, or null. */
export function reach(file: string, specifier: string): string | null {
  if (specifier.startsWith('#')) return `${specifier} is a private import of the package`;
  if (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`)) {
    const subpath = specifier === pkg.name ? '.' : `./${specifier.slice(pkg.name.length + 1)}`;
    return Object.hasOwn(pkg.exports, subpath) ? null : `${specifier} is not exported by the package`;
  }
  if (!specifier.startsWith('.')) return null;
  const target = resolve(dirname(file), specifier);
  const own = dirname(file) === pluginsDir ? pluginsDir : join(pluginsDir, relative(pluginsDir, file).split(sep)[0] ?? '');
  return (target + sep).startsWith(own + sep) ? null : `${specifier} leaves ${relative(root, own)}/`;
}

t.test('the check catches what it must', async (t) => {
  const file = join(pluginsDir, 'polls', 'storage', 'sqlite.ts');
  const bad = [
    "import type { Core } from '../../../core/domain/context.ts';",
    "import { openDb } from '../../../adapters/sqlite/db.ts';",
    "export { x } from '../../media/index.ts';",
    "import { y } from 'rookery/core/domain/model.ts';",
    "import { z } from '#internal';",
  ];
  for (const line of bad) t.equal(specifiers(line).map((s) => reach(file, s)).filter((v) => v !== null).length, 1, `flags: ${line}`);
  const good = ["import { x } from './port.ts';", "import type { SqliteExtensionContext } from 'rookery/sqlite';", "import { json } from 'rookery/plugin-kit';", "import webpush from 'web-push';"];
  for (const line of good) t.same(specifiers(line).map((s) => reach(file, s)), [null], `allows: ${line}`);
  t.same(specifiers("export * from './polls/index.ts';").map((s) => reach(join(pluginsDir, 'index.ts'), s)), [null], 'the barrel names every plugin');
});

t.test('no plugin imports past its own folder', async (t) => {
  const files = sourceFiles(pluginsDir);
  t.ok(files.length > 40, `scanned ${files.length} files`);
  const problems: string[] = [];
  for (const file of files) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      const problem = reach(file, specifier);
      if (problem !== null) problems.push(`${relative(root, file)}: ${problem}`);
    }
  }
  t.same(problems, []);
});
