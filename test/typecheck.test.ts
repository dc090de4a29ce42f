// The whole repository type-checks under strict TypeScript (Node only strips types at run
// time, so nothing else would notice a type error).

import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cleanCommand } from './helpers/processes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

t.test('tsc --noEmit reports nothing', async (t) => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(...cleanCommand(process.execPath, [tsc, '--noEmit', '-p', root]), { encoding: 'utf8', cwd: root });
  t.equal(result.stdout.trim(), '', 'no diagnostics');
  t.equal(result.status, 0, 'exit code 0');
});
