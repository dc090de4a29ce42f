// Points a scratch checkout of masto.js at a Rookery instance instead of its docker compose:
// a few exact string edits in its test-utils/ (never in tests/) and our own Tootctl file.
// Each edit names the text it expects and how many times; if upstream changed that text the
// script stops with a message, so a silent half-patched run cannot happen.
//
//   node scripts/mastojs-e2e/prepare.ts <masto.js checkout>
//
// At run time the patched files read MASTO_E2E_URL, MASTO_E2E_ADMIN_LOGIN, MASTO_E2E_REDIS_URL,
// ROOKERY_NODE and ROOKERY_CLI, which scripts/mastojs-e2e.sh exports.
import { existsSync, readFileSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface Edit {
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  readonly times: number;
  readonly why: string;
}

const EDITS: readonly Edit[] = [
  {
    file: 'vitest-global-setup.ts',
    find: '"http://localhost:3000"',
    replace: 'process.env.MASTO_E2E_URL!',
    times: 2,
    why: 'the app and the admin token are made on the instance under test',
  },
  {
    file: 'vitest-global-setup.ts',
    find: 'username: "admin@localhost",',
    replace: 'username: process.env.MASTO_E2E_ADMIN_LOGIN!,',
    times: 1,
    why: 'Rookery refuses the fixture\'s admin (reserved username, address without a dot)',
  },
  {
    file: 'vitest-environment.ts',
    find: 'const url = "http://localhost:3000";',
    replace: 'const url = process.env.MASTO_E2E_URL!;',
    times: 1,
    why: 'the specs talk to the instance under test',
  },
  {
    file: 'vitest-environment.ts',
    find: 'redis = new Redis();',
    replace: 'redis = new Redis(process.env.MASTO_E2E_REDIS_URL!);',
    times: 1,
    why: 'the token pool lives in the run\'s private redis-server, not the shared default one',
  },
  {
    file: 'services/token-factory-docker.ts',
    find: 'await sleep(5000);',
    replace: '',
    times: 2,
    why: 'a Rookery account can sign in as soon as the CLI returns',
  },
  {
    file: 'services/tootctl/index.ts',
    find: 'export * from "./tootctl-docker.js";',
    replace: 'export * from "./tootctl-rookery.js";',
    times: 1,
    why: 'accounts come from Rookery\'s CLI, not tootctl in a container',
  },
];

function fail(message: string): never {
  console.error(`mastojs-e2e prepare: ${message}`);
  process.exit(1);
}

function occurrences(text: string, find: string): number {
  return text.split(find).length - 1;
}

const checkout = process.argv[2];
if (checkout === undefined) fail('usage: node scripts/mastojs-e2e/prepare.ts <masto.js checkout>');
const testUtils = join(checkout, 'test-utils');
if (!existsSync(testUtils)) fail(`${testUtils} does not exist: is ${checkout} a masto.js checkout?`);

// Every edit is checked before any file is written: a failed run leaves the checkout as cloned.
const edited = new Map<string, string>();
for (const edit of EDITS) {
  const path = join(testUtils, edit.file);
  if (!existsSync(path)) fail(`test-utils/${edit.file} is gone upstream; expected to edit it so that ${edit.why}`);
  const text = edited.get(path) ?? readFileSync(path, 'utf8');
  const found = occurrences(text, edit.find);
  if (found !== edit.times) {
    fail(`test-utils/${edit.file} has ${found} × ${JSON.stringify(edit.find)}, expected ${edit.times} ` +
      `(the edit is there so that ${edit.why}); masto.js changed: update scripts/mastojs-e2e/prepare.ts`);
  }
  edited.set(path, text.split(edit.find).join(edit.replace));
}
const ours = join(testUtils, 'services/tootctl/tootctl-rookery.ts');
if (existsSync(ours)) fail(`test-utils/services/tootctl/tootctl-rookery.ts already exists upstream; not overwriting it`);

for (const [path, text] of edited) writeFileSync(path, text);
copyFileSync(join(import.meta.dirname, 'tootctl-rookery.ts'), ours);


// Nothing the suite loads may still aim at the docker setup's address.
for (const entry of readdirSync(testUtils, { recursive: true, encoding: 'utf8' })) {
  if (!entry.endsWith('.ts')) continue;
  if (readFileSync(join(testUtils, entry), 'utf8').includes('localhost:3000')) {
    fail(`test-utils/${entry} still names localhost:3000 after the edits; masto.js changed: update scripts/mastojs-e2e/prepare.ts`);
  }
}
console.log(`mastojs-e2e prepare: ${EDITS.length} edits in test-utils/, tootctl-rookery.ts added`);
