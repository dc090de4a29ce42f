// Embedding, proven from the outside: pack the library as npm would publish it, install the
// tarball into a fresh app next to hapi, and run the embedding examples against it
// (examples/embed-hapi, examples/embed-node, and examples/plugin-digest: an app's own plugin
// written against the package's exports alone). One pack and one install serve them all.

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { childEnv, cleanCommand, endsWithTest, freePort } from '../helpers/processes.ts';

t.setTimeout(240_000);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'rookery-embed-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, 'app');

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(...cleanCommand(command, args), { cwd, encoding: 'utf8', env: childEnv({ npm_config_audit: 'false', npm_config_fund: 'false' }) });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A running example: its base URL, and `until(text)`, which resolves with the first line of
 * its output (since start) that contains `text`. */
interface Running {
  base: string;
  until(text: string): Promise<string>;
}

/** Copies one example (its .ts files) into the app, runs its server.ts and resolves once it
 * says it listens. */
async function start(t: Test, example: string): Promise<Running> {
  const dir = join(app, example);
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(join(root, 'examples', example)).filter((name) => name.endsWith('.ts'))) {
    copyFileSync(join(root, 'examples', example, file), join(dir, file));
  }
  const port = await freePort();
  const child = endsWithTest(spawn(...cleanCommand(process.execPath, [join(example, 'server.ts')]), { cwd: app, env: childEnv({ PORT: String(port), DB: join(work, `${example}.sqlite3`) }), stdio: ['ignore', 'pipe', 'pipe'] }));
  t.teardown(() => {
    child.kill('SIGTERM');
  });
  let output = '';
  const waiting: { text: string; found(line: string): void }[] = [];
  const exited = new Promise<never>((_, fail) => child.on('exit', (code) => fail(new Error(`${example} exited with ${code}: ${output}`))));
  exited.catch(() => undefined);
  const lineWith = (text: string) => output.split('\n').find((line) => line.includes(text));
  const watch = (chunk: Buffer) => {
    output += chunk.toString();
    for (const w of [...waiting]) {
      const line = lineWith(w.text);
      if (line !== undefined) {
        waiting.splice(waiting.indexOf(w), 1);
        w.found(line);
      }
    }
  };
  child.stdout.on('data', watch);
  child.stderr.on('data', watch);
  const until = (text: string): Promise<string> => {
    const earlier = lineWith(text);
    if (earlier !== undefined) return Promise.resolve(earlier);
    return Promise.race([new Promise<string>((found) => waiting.push({ text, found })), exited]);
  };
  await until('listening on');
  return { base: `http://127.0.0.1:${port}`, until };
}

/** The host's own route, app registration, OAuth, and Mastodon's error bodies. */
async function exercise(t: Test, base: string, homeText = 'My app, now with a Mastodon API'): Promise<void> {
  const home = await fetch(`${base}/`);
  t.equal(home.status, 200);
  t.equal(await home.text(), homeText, 'the host keeps its own routes');
  const app1 = await fetch(`${base}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Embedded', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }),
  });
  t.equal(app1.status, 200, 'the Mastodon API is mounted');
  const registered = (await app1.json()) as { client_id: string; client_secret: string };
  t.type(registered.client_id, 'string');
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: registered.client_id, client_secret: registered.client_secret, scope: 'read' }),
  });
  t.equal(token.status, 200, 'OAuth works');
  const unauthorized = await fetch(`${base}/api/v1/statuses`, { method: 'POST' });
  t.equal(unauthorized.status, 401);
  t.same(await unauthorized.json(), { error: 'The access token is invalid' });
  const missing = await fetch(`${base}/api/v1/statuses/1`);
  t.equal(missing.status, 404);
  t.same(await missing.json(), { error: 'Record not found' });
}

t.before(() => {
  // The package as published (scripts/pack.mjs): compiled JavaScript and declarations.
  run('npm', ['run', '-s', 'pack', '--', work], root);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack made no tarball');
  mkdirSync(app);
  // What the README asks of a host app: ESM ("type": "module") on Node 24.
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'host-app', private: true, type: 'module' }));
  run('npm', ['install', '--no-save', '--prefer-offline', join(work, tarball), '@hapi/hapi@21.4.10'], app);
});

t.test('the packed tarball ships compiled code and declarations only', async (t) => {
  const installed = join(app, 'node_modules', 'rookery');
  t.ok(existsSync(join(installed, 'dist', 'adapters', 'hapi', 'index.js')), 'compiled adapters are shipped');
  t.ok(existsSync(join(installed, 'dist', 'adapters', 'node', 'handler.js')), 'the node handler too');
  t.ok(existsSync(join(installed, 'dist', 'core', 'index.d.ts')), 'with type declarations');
  t.ok(existsSync(join(installed, 'dist', 'plugins', 'index.js')), 'the plugins are shipped');
  t.ok(existsSync(join(installed, 'dist', 'plugins', 'media', 'index.d.ts')), 'each with its declarations');
  t.notOk(existsSync(join(installed, 'core')), 'no TypeScript sources (Node will not strip types under node_modules)');
  t.notOk(existsSync(join(installed, 'dist', 'test')), 'no tests');
  t.notOk(existsSync(join(app, 'node_modules', 'qs')), 'no qs any more');
  // The app has no tap: the contract suites must load without it (tap only types their argument).
  const loaded = run(process.execPath, ['--input-type=module', '-e', "const m = await import('rookery/testing'); console.log(typeof m.storageContract, typeof m.queueContract)"], app);
  t.equal(loaded.trim(), 'function function', 'rookery/testing exports the contracts and loads without tap');
  // rookery/mongodb comes with its driver (a dependency): an app imports it and nothing more.
  const mongo = run(process.execPath, ['--input-type=module', '-e', "const m = await import('rookery/mongodb'); console.log(typeof m.openMongoStorage, m.SCHEMA_VERSION)"], app);
  t.equal(mongo.trim(), 'function 10', 'rookery/mongodb loads from the tarball with the mongodb driver');
  // rookery/prometheus comes with prom-client.
  const prometheus = run(process.execPath, ['--input-type=module', '-e', "const m = await import('rookery/prometheus'); console.log(typeof m.createRookeryMetrics)"], app);
  t.equal(prometheus.trim(), 'function', 'rookery/prometheus loads from the tarball with prom-client');
});

t.test('examples/embed-hapi: a hapi app', async (t) => {
  await exercise(t, (await start(t, 'embed-hapi')).base);
});

t.test('examples/embed-node: a plain node:http app', async (t) => {
  const { base } = await start(t, 'embed-node');
  await exercise(t, base);
  const elsewhere = await fetch(`${base}/elsewhere`);
  t.same([elsewhere.status, await elsewhere.text()], [404, 'Not in my app either'], "paths that are not Rookery's come back to the app");
  const unknownApi = await fetch(`${base}/api/v9/nothing`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=X' }, body: '--X--' });
  t.same([unknownApi.status, await unknownApi.json()], [404, { error: 'Not Found' }], 'unknown /api paths are Rookery\'s 404');
});

t.test('examples/plugin-digest: an app-made plugin from the package exports alone', async (t) => {
  const { base, until } = await start(t, 'plugin-digest');
  await exercise(t, base, 'My app, now with a Mastodon API and a digest');
  const json = { 'content-type': 'application/json' };
  // A person signs up through an app (client_credentials), and posts.
  const registered = (await (await fetch(`${base}/api/v1/apps`, { method: 'POST', headers: json, body: JSON.stringify({ client_name: 'Digest test', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }) })).json()) as { client_id: string; client_secret: string };
  const appToken = (await (await fetch(`${base}/oauth/token`, { method: 'POST', headers: json, body: JSON.stringify({ grant_type: 'client_credentials', client_id: registered.client_id, client_secret: registered.client_secret, scope: 'read write' }) })).json()) as { access_token: string };
  const signUp = await fetch(`${base}/api/v1/accounts`, { method: 'POST', headers: { ...json, authorization: `Bearer ${appToken.access_token}` }, body: JSON.stringify({ username: 'digester', email: 'digester@example.com', password: 'a long password', agreement: true, locale: 'en' }) });
  t.equal(signUp.status, 200, 'signed up');
  const user = { ...json, authorization: `Bearer ${((await signUp.json()) as { access_token: string }).access_token}` };
  const post = async (body: Record<string, unknown>) => (await (await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: user, body: JSON.stringify(body) })).json()) as { id: string };

  const first = await post({ status: 'first public post' });
  t.equal(await until(`digest: recorded ${first.id}`), `digest: recorded ${first.id}`, 'the plugin\'s listener ran and told the app');
  const hidden = await post({ status: 'followers only', visibility: 'private' });
  const reply = await post({ status: 'a reply', in_reply_to_id: first.id });
  const second = await post({ status: 'which one?', poll: { options: ['this', 'that'], expires_in: 3600 } });
  await until(`digest: recorded ${second.id}`);

  const digest = await fetch(`${base}/api/v1/digest`);
  t.equal(digest.status, 200);
  const entries = (await digest.json()) as { id: string; content: string; poll: { options: { title: string }[] } | null }[];
  t.same(entries.map((s) => s.id), [second.id, first.id], 'public top-level posts only, newest first');
  t.notOk(entries.some((s) => s.id === hidden.id || s.id === reply.id));
  t.equal(entries[1]?.content, '<p>first public post</p>', 'rendered as Mastodon Statuses');
  t.same(entries[0]?.poll?.options.map((o) => o.title), ['this', 'that'], 'with what other plugins add (the polls plugin\'s poll)');
  const limited = await fetch(`${base}/api/v1/digest?limit=1`);
  t.same(((await limited.json()) as { id: string }[]).map((s) => s.id), [second.id], 'limit');
  const bad = await fetch(`${base}/api/v1/digest?limit=500`);
  t.same([bad.status, await bad.json()], [422, { error: 'limit must be a whole number from 1 to 40' }], 'its errors in Mastodon\'s shape');
});
