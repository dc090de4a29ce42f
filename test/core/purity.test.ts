// core/ must stay pure: it imports only other files of core/ — no adapter, no plugin, no
// framework, no driver, no node: module. This test reads every import in core/ and fails on
// anything else, so the rule is enforced rather than promised.

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { sourceFiles, specifiers } from '../helpers/imports.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const coreDir = join(root, 'core');

export function violation(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return `${specifier} is not a file of core/`;
  const target = resolve(dirname(file), specifier);
  if (!(target + sep).startsWith(coreDir + sep)) return `${specifier} leaves core/`;
  return null;
}

t.test('the detector itself catches what it must', async (t) => {
  const file = join(coreDir, 'statuses', 'x.ts');
  const bad = [
    "import Hapi from '@hapi/hapi';",
    "import { DatabaseSync } from 'node:sqlite';",
    "import type { Storage } from '../../adapters/sqlite/index.ts';",
    "export { x } from '../../plugins/media.ts';",
    "const fs = await import('node:fs');",
    "const m = require('mongodb');",
    "import {\n  a,\n  b,\n} from 'pino';",
  ];
  for (const line of bad) {
    const problems = specifiers(line).map((s) => violation(file, s)).filter((v) => v !== null);
    t.equal(problems.length, 1, `flags: ${line.replace(/\n/g, ' ')}`);
  }
  t.same(specifiers("import { a } from '../model.ts';").map((s) => violation(file, s)), [null], 'a core file is fine');
});

t.test('core/ imports nothing outside core/', async (t) => {
  const files = sourceFiles(coreDir);
  t.ok(files.length > 30, `scanned ${files.length} files`);
  const problems: string[] = [];
  for (const file of files) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      const problem = violation(file, specifier);
      if (problem) problems.push(`${relative(root, file)}: ${problem}`);
    }
  }
  t.same(problems, [], 'no framework, driver, I/O module, adapter or plugin');
});

t.test('core/ does not reach for Node globals that do I/O', async (t) => {
  const problems: string[] = [];
  for (const file of sourceFiles(coreDir)) {
    const source = readFileSync(file, 'utf8');
    for (const name of ['process.', 'Buffer.', 'fetch(', '__dirname']) {
      if (source.includes(name)) problems.push(`${relative(root, file)} uses ${name}`);
    }
  }
  t.same(problems, []);
});
