// The project documents its own contract: code and tests cite rules in their own words or point
// into docs/behaviour.md, never to files outside the repository (Mastodon's source files and
// classes, the reference notes the project was started from). Every pointer into
// docs/behaviour.md names a section that exists. The detector is checked on made-up text first.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = 'docs/behaviour.md';

/** What points outside the repository. */
const OUTSIDE: readonly [string, RegExp][] = [
  ['a Ruby source file', /\b[\w/]+\.rb\b/],
  ["Mastodon's streaming server source", /streaming\/index\.js/],
  ['a Mastodon source folder', /\bapp\/(?:lib|models|services|controllers|workers|serializers|validators|policies|helpers)\//],
  ['a class#method or Class::CONSTANT of a Ruby source', /\b[A-Z][A-Za-z]+(?:#[a-z_][a-z_]*[!?]?|::[A-Z_]{3,})/],
  ['a reference note by name', /\b(?:entities|statuses|oauth|limits|streaming|supporting-api)\.md\b/],
  ['the shared folder', /\/work\/shared\b/],
  ['the founding spec by part', /\bspec parts? \d/],
];

function problems(text: string): string[] {
  return OUTSIDE.flatMap(([what, pattern]) => (pattern.test(text) ? [what] : []));
}

/** The section titles a pointer may name: docs/behaviour.md, "Title". */
function pointers(text: string): string[] {
  return [...text.matchAll(/docs\/behaviour\.md,\s*(?:\/\/\s*|\*\s*)?"([^"]+)"/g)].map((m) => m[1] ?? '');
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name === '.git' || name === 'data') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mjs|sh)$/.test(name) ? [path] : [];
  });
}

t.test('the detector finds what points outside, and only that', async (t) => {
  t.strictSame(problems('// as FeedManager#add_to_feed in app/lib/feed_manager.rb does'), ['a Ruby source file', 'a Mastodon source folder', 'a class#method or Class::CONSTANT of a Ruby source']);
  t.strictSame(problems('// see streaming/index.js and reference statuses.md §4'), ["Mastodon's streaming server source", 'a reference note by name']);
  t.strictSame(problems("// Account::MENTION_RE, spec part 3, /work/shared/reference"), ['a class#method or Class::CONSTANT of a Ruby source', 'the shared folder', 'the founding spec by part']);
  t.strictSame(problems('// a boost stands for its original (docs/behaviour.md, "Home feed"); see #cats and a.b#c'), []);
  t.strictSame(pointers('x (docs/behaviour.md, "Home feed") y docs/behaviour.md,\n// "Web Push"'), ['Home feed', 'Web Push']);
});

t.test('code and tests cite in their own words, and their pointers into docs/behaviour.md resolve', async (t) => {
  const doc = readFileSync(join(root, DOC), 'utf8');
  const sections = new Set([...doc.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]?.trim() ?? ''));
  t.ok(sections.has('Home feed') && sections.has('Errors') && sections.has('Limits'), `${DOC} has its sections`);
  const scanned = ['core', 'adapters', 'plugins', 'examples', 'test', 'bench', 'scripts'].flatMap((dir) => files(join(root, dir)));
  t.ok(scanned.length > 150, `scanned ${scanned.length} files`);
  const self = fileURLToPath(import.meta.url);
  const found: string[] = [];
  const dangling: string[] = [];
  let pointed = 0;
  for (const file of scanned) {
    const text = readFileSync(file, 'utf8');
    const name = relative(root, file);
    if (file === self) continue;
    for (const what of problems(text)) found.push(`${name}: ${what}`);
    for (const title of pointers(text)) {
      pointed += 1;
      if (!sections.has(title)) dangling.push(`${name}: "${title}"`);
    }
  }
  t.strictSame(found, [], 'nothing points outside the repository');
  t.strictSame(dangling, [], `every pointer names a section of ${DOC}`);
  t.ok(pointed >= 30, `${pointed} pointers checked`);
});
