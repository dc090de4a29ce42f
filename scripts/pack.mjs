// Builds the package as it is published and packs it: `npm run pack -- [destination]`.
//
// In this repository the package's exports point at the TypeScript sources, so that the code
// here (the plugins above all) imports `rookery/plugin-kit` and the rest exactly as an outside
// plugin does, run by Node's type stripping with no build step. Node will not strip types under
// node_modules, so what is published is compiled: dist/ (JavaScript and declarations, from
// tsconfig.build.json) in a staging folder whose package.json maps the same exports to it.
// The repository's own package.json is private, so that it is never published by mistake.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const destination = resolve(process.argv[2] ?? root);
const stage = join(root, 'build', 'package');
const source = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });

/** ./core/index.ts → { types: ./dist/core/index.d.ts, default: ./dist/core/index.js } */
const compiled = (path) => {
  const base = path.replace(/^\.\//, './dist/').replace(/\.ts$/, '');
  return { types: `${base}.d.ts`, default: `${base}.js` };
};

const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: source.type,
  engines: source.engines,
  exports: Object.fromEntries(Object.entries(source.exports).map(([subpath, path]) => [subpath, compiled(path)])),
  files: ['dist', 'README.md'],
  dependencies: source.dependencies,
  peerDependencies: source.peerDependencies,
  peerDependenciesMeta: source.peerDependenciesMeta,
};

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
cpSync(join(root, 'dist'), join(stage, 'dist'), { recursive: true });
cpSync(join(root, 'README.md'), join(stage, 'README.md'));
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
mkdirSync(destination, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
execFileSync(npm, ['pack', stage, '--pack-destination', destination], { stdio: 'inherit', cwd: root });
