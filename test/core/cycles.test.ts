// core/ has no import cycles, type-only imports included: every module can be read, tested and
// replaced from the bottom up. The detector is checked on graphs made up for it first.

import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cycles, importGraph, sourceFiles } from '../helpers/imports.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const coreDir = join(root, 'core');

t.test('the detector finds the cycles it must, and only those', async (t) => {
  const sources: Record<string, string> = {
    '/x/a.ts': "import type { B } from './b.ts';",
    '/x/b.ts': "import { c } from './c.ts';\nexport type B = 1;",
    '/x/c.ts': "export type { A } from './a.ts';",
    '/x/d.ts': "import { a } from './a.ts';\nimport './d.ts';",
    '/x/e.ts': "import {\n  x,\n} from './f/index.ts';",
    '/x/f/index.ts': "import type { E } from '../e.ts';",
    '/x/g.ts': "import { h } from './h.ts'; import t from 'tap';",
    '/x/h.ts': 'export const h = 1;',
  };
  const graph = importGraph(Object.keys(sources), (file) => sources[file] ?? '');
  t.same(
    cycles(graph).map((c) => c.join(' ')).sort(),
    ['/x/a.ts /x/b.ts /x/c.ts', '/x/d.ts', '/x/e.ts /x/f/index.ts'],
    'a type-only cycle of three, a self-import, a cycle through an index file; g → h is no cycle',
  );
});

t.test('core/ has no import cycle', async (t) => {
  const files = sourceFiles(coreDir);
  t.ok(files.length > 30, `scanned ${files.length} files`);
  const found = cycles(importGraph(files)).map((c) => c.map((f) => relative(root, f)).join(' → '));
  t.same(found, [], 'no cycle among the files of core/');
});
