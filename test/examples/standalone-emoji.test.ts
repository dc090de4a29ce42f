// The operator's custom emoji, as an operator would handle them: `npm run rookery -- emoji …`
// adds one from a file, imports a .tar.gz archive (tootctl's form), lists and removes them, and
// says in one line what it refuses; the instance started on the same DATA_DIR lists them and
// serves their pictures.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { create } from 'tar';
import t from 'tap';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, runCli, startInstance, stopInstance } from '../helpers/standalone.ts';

t.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'rookery-emoji-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, 'data');
const port = await freePort();
const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(await freePort()), BIND: '127.0.0.1', LOG_LEVEL: 'warn', LOCAL_DOMAIN: `127.0.0.1:${port}`, LOCAL_HTTPS: 'false' });

const picture = (colour: string) => sharp({ create: { width: 24, height: 24, channels: 4, background: colour } }).png().toBuffer();
writeFileSync(join(dir, 'rook.png'), await picture('#111'));
writeFileSync(join(dir, 'photo.jpg'), await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer());
const pack = join(dir, 'pack');
mkdirSync(join(pack, 'birds'), { recursive: true });
writeFileSync(join(pack, 'birds', 'crow.png'), await picture('#222'));
writeFileSync(join(pack, 'birds', 'jay.gif'), await sharp({ create: { width: 16, height: 16, channels: 3, background: '#00a' } }).gif().toBuffer());
writeFileSync(join(pack, 'birds', 'bad-name.png'), await picture('#333'));
writeFileSync(join(pack, 'birds', 'notes.txt'), 'not a picture');
writeFileSync(join(pack, 'birds', 'rook.png'), await picture('#444'));
const archive = join(dir, 'birds.tar.gz');
await create({ gzip: true, file: archive, cwd: pack }, ['birds']);

t.test('add, import, list, remove; refusals in one line', async (t) => {
  t.equal(cli(env, 'emoji', 'list'), 'No custom emoji.');
  t.equal(cli(env, 'emoji', 'add', 'rook', join(dir, 'rook.png'), '--category', 'Birds'), 'Added :rook:.');
  const refusals: [string[], string][] = [
    [['emoji', 'add', 'rook', join(dir, 'rook.png')], ':rook: exists already; --overwrite replaces it.'],
    [['emoji', 'add', 'r', join(dir, 'rook.png')], 'Validation failed: Shortcode is too short (minimum is 2 characters)'],
    [['emoji', 'add', 'photo', join(dir, 'photo.jpg')], 'Validation failed: Image is not a PNG, GIF or WebP picture'],
    [['emoji', 'add', 'gone', join(dir, 'missing.png')], `Cannot read ${join(dir, 'missing.png')}: ENOENT`],
    [['emoji', 'import', join(dir, 'rook.png')], `Cannot read ${join(dir, 'rook.png')} as a .tar.gz archive: TAR_BAD_ARCHIVE`],
    [['emoji', 'remove', 'nobody'], 'No custom emoji :nobody:.'],
  ];
  for (const [args, text] of refusals) {
    const run = runCli(env, ...args);
    t.same([run.status, run.stderr.trim(), run.stdout], [1, text, ''], args.join(' '));
  }
  t.equal(
    cli(env, 'emoji', 'import', archive, '--prefix', 'b_', '--unlisted'),
    'Imported 3, skipped 0 (they exist; --overwrite replaces them), failed 1.\n  :b_bad-name:  Validation failed: Shortcode is invalid',
    'named after their files; the text file ignored',
  );
  t.equal(cli(env, 'emoji', 'import', archive, '--prefix', 'b_'), 'Imported 0, skipped 3 (they exist; --overwrite replaces them), failed 1.\n  :b_bad-name:  Validation failed: Shortcode is invalid');
  t.equal(cli(env, 'emoji', 'add', 'rook', join(dir, 'rook.png'), '--overwrite'), 'Replaced :rook:.');
  const listed = cli(env, 'emoji', 'list').split('\n');
  t.same(listed.map((line) => line.replace(/http\S+/, 'URL')), [':b_crow:  URL  unlisted', ':b_jay:  URL  unlisted', ':b_rook:  URL  unlisted', ':rook:  URL'], 'the replaced one lost its category');
  t.equal(cli(env, 'emoji', 'remove', 'b_rook'), 'Removed :b_rook:.');
});

t.test('the instance on the same DATA_DIR lists them and serves their pictures', async (t) => {
  const instance = await startInstance(env);
  t.teardown(() => stopInstance(instance));
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/custom_emojis`);
  t.equal(answer.status, 200);
  const emojis = (await answer.json()) as { shortcode: string; url: string; static_url: string; visible_in_picker: boolean; category: string | null }[];
  t.same(emojis.map((e) => [e.shortcode, e.visible_in_picker, e.category]), [['b_crow', false, null], ['b_jay', false, null], ['rook', true, null]]);
  for (const e of emojis) {
    for (const url of [e.url, e.static_url]) t.equal((await fetch(url)).status, 200, url);
  }
  t.match(emojis[1]?.url, /\.gif$/, 'the GIF stays one');
});
