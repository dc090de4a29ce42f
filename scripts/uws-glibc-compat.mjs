// Makes the uWebSockets.js addon load on a glibc older than 2.38 (Debian 12 has 2.36), for
// development and CI. Runs as `prepare` after every `npm install`/`npm ci`, and by hand as
// `npm run uws:compat`.
//
// - A no-op when the addon already loads: glibc >= 2.38 (Debian 13, Ubuntu 24.04), macOS,
//   Windows, or an addon this script patched before. Idempotent.
// - Otherwise, when the only thing missing is glibc's C23 functions (__isoc23_strtol,
//   __isoc23_strtoul, __isoc23_sscanf), it builds scripts/uwsshim.c into libuwsshim.so next to
//   the addon and rewrites the addon to use it: the symbols' version requirement cleared, the
//   shim added as a needed library found through $ORIGIN (patchelf, one change per call: one
//   combined call wrote a broken RUNPATH with patchelf 0.14.3), and the now unused GLIBC_2.38
//   requirement marked weak, since ld.so checks every version a library says it needs.
// - Anything else fails loudly with the reason. It never leaves a half-patched addon: it
//   patches a copy, swaps it in, proves it loads in a fresh process, and restores the original
//   if it does not. Nothing falls back to another transport: the streaming server needs uWS.
//
// It needs gcc and patchelf; when they are missing it asks scripts/ensure-system-deps.sh,
// which installs them with apt-get as root and otherwise says what to install.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'node_modules', 'uWebSockets.js');
const SHIMMED = new Set(['__isoc23_strtol', '__isoc23_strtoul', '__isoc23_sscanf']);
const SHIM = 'libuwsshim.so';

function say(message) {
  console.log(`uws-glibc-compat: ${message}`);
}

function fail(message) {
  console.error(`uws-glibc-compat: ${message}`);
  process.exit(1);
}

/** "2.36" < "2.38" < "2.3.10"-style comparison of dotted numbers. */
function versionLess(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

/** Loads the package in a fresh Node (a failed dlopen must not linger in this process). */
function tryLoad() {
  const result = spawnSync(process.execPath, ['-e', `const uws = require(${JSON.stringify(dir)}); if (typeof uws.App !== 'function') throw new Error('no App');`], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return result.status === 0 ? null : (result.stderr || `exit ${result.status}`).trim();
}

function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}`);
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

// ---- a reader for the parts of an ELF64 little-endian file that matter here ----------------

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2;

function sections(b) {
  if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) throw new Error('not an ELF64 little-endian file');
  const shoff = Number(b.readBigUInt64LE(0x28));
  const size = b.readUInt16LE(0x3a);
  const count = b.readUInt16LE(0x3c);
  const out = [];
  for (let i = 0; i < count; i++) {
    const o = shoff + i * size;
    out.push({ type: b.readUInt32LE(o + 4), offset: Number(b.readBigUInt64LE(o + 24)), size: Number(b.readBigUInt64LE(o + 32)), link: b.readUInt32LE(o + 40), info: b.readUInt32LE(o + 44) });
  }
  return out;
}

function cstring(b, offset) {
  let end = offset;
  while (b[end] !== 0) end++;
  return b.toString('latin1', offset, end);
}

/** Every version the file needs: { file, name, flagsAt (byte offset of vna_flags), index }. */
function versionNeeds(b) {
  const all = sections(b);
  const needs = [];
  for (const s of all) {
    if (s.type !== SHT_GNU_VERNEED) continue;
    const strings = all[s.link].offset;
    let vn = s.offset;
    for (let n = 0; n < s.info; n++) {
      const file = cstring(b, strings + b.readUInt32LE(vn + 4));
      let aux = vn + b.readUInt32LE(vn + 8);
      for (let k = 0; k < b.readUInt16LE(vn + 2); k++) {
        needs.push({ file, name: cstring(b, strings + b.readUInt32LE(aux + 8)), flagsAt: aux + 4, index: b.readUInt16LE(aux + 6) });
        const next = b.readUInt32LE(aux + 12);
        if (next === 0) break;
        aux += next;
      }
      const next = b.readUInt32LE(vn + 12);
      if (next === 0) break;
      vn += next;
    }
  }
  return needs;
}

/** The dynamic symbols bound to a version index. */
function symbolsOfVersion(b, index) {
  const all = sections(b);
  const dynsym = all.find((s) => s.type === SHT_DYNSYM);
  const versym = all.find((s) => s.type === SHT_GNU_VERSYM);
  if (dynsym === undefined || versym === undefined) return [];
  const strings = all[dynsym.link].offset;
  const names = [];
  for (let i = 0; i < dynsym.size / 24; i++) {
    if ((b.readUInt16LE(versym.offset + i * 2) & 0x7fff) !== index) continue;
    names.push(cstring(b, strings + b.readUInt32LE(dynsym.offset + i * 24)));
  }
  return names;
}

// ---- the steps ------------------------------------------------------------------------------

if (!existsSync(join(dir, 'package.json'))) {
  say('uWebSockets.js is not installed here: nothing to do');
  process.exit(0);
}
const addon = join(dir, `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
const original = `${addon}.orig`;
// A run that died between swapping the files in and out left the original aside: put it back.
if (existsSync(original)) renameSync(original, addon);

const loadError = tryLoad();
const glibc = process.report.getReport().header.glibcVersionRuntime;
if (loadError === null) {
  say(`uWebSockets.js loads (Node ${process.version}, ${glibc ? `glibc ${glibc}` : process.platform}): nothing to do`);
  process.exit(0);
}
const cannot = `uWebSockets.js cannot load on this system, and this script cannot help:\n${loadError}\n` + 'Rookery\'s streaming server needs it: Linux with glibc >= 2.38 (Debian 13, Ubuntu 24.04), macOS or Windows.';
if (process.platform !== 'linux' || !glibc) fail(cannot);
if (!versionLess(glibc, '2.38')) fail(cannot);
if (!existsSync(addon)) fail(`${addon} is missing: uWebSockets.js has no build for Node ABI ${process.versions.modules} on ${process.platform}-${process.arch}`);

const pristine = readFileSync(addon);
const tooNew = versionNeeds(pristine).filter((need) => need.file.startsWith('libc.so') && need.name.startsWith('GLIBC_') && versionLess(glibc, need.name.slice('GLIBC_'.length)));
const symbols = tooNew.flatMap((need) => symbolsOfVersion(pristine, need.index).map((name) => ({ name, version: need.name })));
const unshimmed = symbols.filter((s) => !SHIMMED.has(s.name));
if (unshimmed.length > 0) fail(`${cannot}\nIt needs symbols the shim does not provide: ${unshimmed.map((s) => `${s.name}@${s.version}`).join(', ')}`);
if (tooNew.length === 0 || symbols.length === 0) fail(cannot);

const missing = ['gcc', 'patchelf'].filter((tool) => !hasCommand(tool));
if (missing.length > 0) {
  const ensured = spawnSync('bash', [join(root, 'scripts', 'ensure-system-deps.sh'), ...missing], { stdio: 'inherit' });
  if (ensured.status !== 0) fail(`glibc ${glibc} < 2.38 needs the shim, which needs ${missing.join(' and ')} (see above)`);
}

say(`glibc ${glibc} < 2.38: shimming ${symbols.map((s) => s.name).join(', ')} in ${addon}`);
const work = `${addon}.patching`;
try {
  run('gcc', ['-shared', '-fPIC', '-O2', '-Wall', '-o', join(dir, SHIM), join(root, 'scripts', 'uwsshim.c')]);
  copyFileSync(addon, work);
  run('patchelf', [...symbols.flatMap((s) => ['--clear-symbol-version', s.name]), work]);
  run('patchelf', ['--add-needed', SHIM, work]);
  run('patchelf', ['--set-rpath', '$ORIGIN', work]);
  const patched = readFileSync(work);
  const weakened = versionNeeds(patched).filter((need) => tooNew.some((t) => t.file === need.file && t.name === need.name));
  for (const need of weakened) patched.writeUInt16LE(patched.readUInt16LE(need.flagsAt) | VER_FLG_WEAK, need.flagsAt);
  const stillBound = weakened.flatMap((need) => symbolsOfVersion(patched, need.index));
  if (stillBound.length > 0) throw new Error(`symbols still bound to a weakened version: ${stillBound.join(', ')}`);
  writeFileSync(work, patched);
  say(`${weakened.length} version requirement(s) made weak: ${weakened.map((n) => n.name).join(', ')}`);
} catch (err) {
  rmSync(work, { force: true });
  fail(String(err instanceof Error ? err.message : err));
}

renameSync(addon, original);
renameSync(work, addon);
const afterError = tryLoad();
if (afterError !== null) {
  renameSync(original, addon);
  fail(`the patched addon still does not load; the original is back in place:\n${afterError}`);
}
rmSync(original);
say(`uWebSockets.js loads on glibc ${glibc} (Node ${process.version})`);
