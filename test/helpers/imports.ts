// Reading a folder's import graph from source text, for the architecture tests (purity, cycles).
// Type-only imports and re-exports count: a type cycle still ties modules together.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every module specifier: static imports and re-exports, dynamic import(), require(). */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) if (match[1]) found.push(match[1]);
  return found;
}

/** file → the files of the same set it imports (relative specifiers only). */
export function importGraph(files: readonly string[], read: (file: string) => string = (f) => readFileSync(f, 'utf8')): Map<string, Set<string>> {
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const deps = new Set<string>();
    for (const spec of specifiers(read(file))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (known.has(target)) deps.add(target);
      else if (known.has(join(target, 'index.ts'))) deps.add(join(target, 'index.ts'));
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself
 * (Tarjan's algorithm): each is an import cycle. */
export function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The file graph collapsed to groups (`groupOf` names a file's group): group → the other groups
 * its files import, with one file-level example of each arrow. */
export function groupGraph(graph: ReadonlyMap<string, ReadonlySet<string>>, groupOf: (file: string) => string): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  for (const [file, deps] of graph) {
    const from = groupOf(file);
    const arrows = groups.get(from) ?? new Map<string, string>();
    groups.set(from, arrows);
    for (const dep of deps) {
      const to = groupOf(dep);
      if (to !== from && !arrows.has(to)) arrows.set(to, `${file} -> ${dep}`);
    }
  }
  return groups;
}
