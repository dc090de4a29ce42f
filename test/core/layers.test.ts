// core/ is layered: the domain (core/domain: model, ports, policy, the operations, events, the
// queue) below the Mastodon application (core/mastodon: api, http, oauth, present, streaming,
// the plugin host and its kit). Imports run one way only, and no two folders of either layer
// import each other, directly or around a loop: each layer can be read from the bottom up.
// This is finer than a check of core's top-level folders alone, which two layers would pass
// however tangled each one is inside.

import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { cycles, groupGraph, importGraph, sourceFiles } from '../helpers/imports.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const coreDir = join(root, 'core');

/** core/index.ts; core/domain/<first segment>; core/mastodon/<first segment>. */
export function groupOf(file: string): string {
  const parts = relative(coreDir, file).split(sep);
  return parts.length <= 2 ? parts.join('/') : parts.slice(0, 2).join('/');
}

function loops(graph: Map<string, Set<string>>): string[] {
  const groups = groupGraph(graph, groupOf);
  const asSets = new Map([...groups].map(([g, arrows]) => [g, new Set(arrows.keys())]));
  return cycles(asSets).map((loop) => {
    const inside = new Set(loop);
    const arrows = loop.flatMap((g) => [...(groups.get(g) ?? [])].filter(([to]) => inside.has(to)).map(([, example]) => relative(root, example.split(' -> ')[0] ?? '') + ' -> ' + relative(root, example.split(' -> ')[1] ?? '')));
    return `${loop.join(', ')}: ${arrows.join('; ')}`;
  });
}

t.test('the group check finds a loop between folders that no file cycle shows', async (t) => {
  const a = join(coreDir, 'domain', 'a', 'one.ts');
  const b = join(coreDir, 'domain', 'b', 'two.ts');
  const a2 = join(coreDir, 'domain', 'a', 'three.ts');
  const graph = new Map([[a, new Set([b])], [b, new Set([a2])], [a2, new Set<string>()]]);
  t.equal(loops(graph).length, 1, 'a → b → a, through two different files of a');
  t.same(loops(new Map([[a, new Set([b])], [b, new Set<string>()]])), [], 'a → b alone is no loop');
});

const graph = importGraph(sourceFiles(coreDir));

t.test('no loop among the folders of core/', async (t) => {
  t.ok(new Set([...graph.keys()].map(groupOf)).size > 30, 'each layer has many groups');
  t.same(loops(graph), []);
});

t.test('the domain imports nothing of the application layer', async (t) => {
  const domain = join(coreDir, 'domain') + sep;
  const mastodon = join(coreDir, 'mastodon') + sep;
  const upward: string[] = [];
  for (const [file, deps] of graph) {
    if (!file.startsWith(domain)) continue;
    for (const dep of deps) if (dep.startsWith(mastodon) || dep === join(coreDir, 'index.ts')) upward.push(`${relative(root, file)} -> ${relative(root, dep)}`);
  }
  t.same(upward, [], 'application → domain only');
});
