// A real headless Chromium walks the authorization code flow against a listening server, as a
// person would: sign in, consent, land on the app's redirect URI (or read the out-of-band
// code off the page); the app then exchanges the code with its PKCE verifier and calls the API.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import t from 'tap';
import { harness, type Harness } from '../helpers/harness.ts';
import { PASSWORD } from '../helpers/oauth.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function api(h: Harness, method: string, path: string, body?: Record<string, string>, token?: string): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = new URLSearchParams(body).toString();
  const res = await fetch(`${h.server.info.uri}${path}`, init);
  return { status: res.status, json: await res.json() };
}

t.test('a real browser through the authorization pages', async (t) => {
  const h = await harness({ listen: true });
  t.teardown(() => h.close());
  const base = h.server.info.uri;
  t.equal(h.core.config.baseUrl, base, 'baseUrl is the real address');
  // The "app": a page on the same server that only shows what it was sent.
  h.server.route({ method: 'GET', path: '/callback-ish', handler: (request) => request.query });
  await h.user('alice');

  const userDataDir = mkdtempSync(join(tmpdir(), 'rookery-chromium-'));
  t.teardown(() => rmSync(userDataDir, { recursive: true, force: true }));
  const context: BrowserContext = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  t.teardown(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);

  t.test('flow 1: redirect URI, PKCE, state', async (t) => {
    const redirectUri = `${base}/callback-ish`;
    const app = await api(h, 'POST', '/api/v1/apps', { client_name: 'Browser test', redirect_uris: redirectUri, scopes: 'read write' });
    t.equal(app.status, 200);
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.json.client_id,
      redirect_uri: redirectUri,
      scope: 'read write',
      state: 'state 123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${base}/oauth/authorize?${query}`);
    t.equal(await page.title(), 'Sign in - Rookery');
    await page.getByLabel('E-mail address or username').fill('alice@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/oauth\/authorize\?/);
    t.equal(await page.title(), 'Authorization required - Rookery');
    t.match(await page.locator('main').innerText(), /Browser test would like permission to access your account, @alice@rookery\.test/);

    const cookie = (await context.cookies(base)).find((c) => c.name === '_rookery_session');
    t.match(cookie, { name: '_rookery_session', httpOnly: true, sameSite: 'Lax', secure: false, path: '/' }, 'the session cookie, as the browser keeps it');

    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL(/\/callback-ish\?/);
    const landed = new URL(page.url());
    t.equal(landed.searchParams.get('state'), 'state 123', 'state comes back');
    const code = landed.searchParams.get('code');
    t.match(code, /^[\w-]{43}$/);

    const token = await api(h, 'POST', '/oauth/token', {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: app.json.client_id,
      client_secret: app.json.client_secret,
    });
    t.equal(token.status, 200);
    t.equal(token.json.scope, 'read write');
    const me = await api(h, 'GET', '/api/v1/accounts/verify_credentials', undefined, token.json.access_token);
    t.equal(me.status, 200);
    t.equal(me.json.username, 'alice');
  });

  t.test('flow 2: out of band, the code read off the page', async (t) => {
    const oob = 'urn:ietf:wg:oauth:2.0:oob';
    const app = await api(h, 'POST', '/api/v1/apps', { client_name: 'Desktop app', redirect_uris: oob, scopes: 'read' });
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({ response_type: 'code', client_id: app.json.client_id, redirect_uri: oob, code_challenge: challenge, code_challenge_method: 'S256' });
    await page.goto(`${base}/oauth/authorize?${query}`);
    t.equal(await page.title(), 'Authorization required - Rookery', 'still signed in: straight to consent');
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL(/\/oauth\/authorize\/native\?code=/);
    t.equal(await page.title(), 'Authorization code - Rookery');
    const code = (await page.locator('#authorization-code').innerText()).trim();
    t.match(code, /^[\w-]{43}$/, 'the code is on the page');

    const token = await api(h, 'POST', '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: oob,
      code_verifier: verifier,
      client_id: app.json.client_id,
      client_secret: app.json.client_secret,
    });
    t.equal(token.status, 200);
    const me = await api(h, 'GET', '/api/v1/accounts/verify_credentials', undefined, token.json.access_token);
    t.equal(me.status, 200);
    t.equal(me.json.username, 'alice');
  });
});
