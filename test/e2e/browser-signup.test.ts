// A real headless Chromium on the front page, as a newcomer: reads what the server is, follows
// "Create an account", gets a mistake pointed out, signs up, and then signs in through
// /oauth/authorize from an app and authorizes it; the app's token is the new account's.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import t from 'tap';
import { frontPlugin } from '../../plugins/front/index.ts';
import { harness } from '../helpers/harness.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

t.test('sign up on the front page, then sign in through /oauth/authorize', async (t) => {
  const h = await harness({
    listen: true,
    plugins: [frontPlugin()],
    config: { title: 'Birdhouse', description: 'A small place for birds.', contactEmail: 'staff@birdhouse.test', rules: ['Be kind', 'No spam'] },
  });
  t.teardown(() => h.close());
  const base = h.server.info.uri;
  h.server.route({ method: 'GET', path: '/callback-ish', handler: (request) => request.query });

  const userDataDir = mkdtempSync(join(tmpdir(), 'rookery-chromium-'));
  t.teardown(() => rmSync(userDataDir, { recursive: true, force: true }));
  const context: BrowserContext = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    javaScriptEnabled: false,
  });
  t.teardown(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);

  await page.goto(`${base}/`);
  t.equal(await page.title(), 'Birdhouse');
  t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Birdhouse');
  t.strictSame(await page.getByRole('listitem').allInnerTexts(), ['Be kind', 'No spam'], 'the rules');
  t.equal(await page.getByRole('link', { name: 'staff@birdhouse.test' }).getAttribute('href'), 'mailto:staff@birdhouse.test', 'the contact');
  t.equal(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href'), '/auth/sign_in');

  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.waitForURL(`${base}/auth/sign_up`);
  t.equal(await page.title(), 'Sign up - Birdhouse');
  await page.getByLabel('Username').fill('wren');
  await page.getByLabel('E-mail address').fill('wren@example.com');
  await page.getByLabel('Password', { exact: true }).fill('tiny');
  await page.getByLabel('Confirm password').fill('tiny');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForLoadState();
  t.equal(await page.getByRole('alert').innerText(), 'Validation failed: Password is too short (minimum is 8 characters), Agreement must be accepted', 'mistakes are pointed out');
  t.equal(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true', 'and tied to their fields');
  t.equal(await page.getByLabel('Username').inputValue(), 'wren', 'what was typed is kept');

  await page.getByLabel('Password', { exact: true }).fill('a good long password');
  await page.getByLabel('Confirm password').fill('a good long password');
  await page.getByLabel('I agree to the rules').check();
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForLoadState();
  t.equal(await page.title(), 'Account created - Birdhouse');
  t.match(await page.getByRole('status').innerText(), /^Welcome, @wren@rookery\.test\. Your account is ready: sign in from your Mastodon app, or below\.$/);

  // An app sends the newcomer to the authorization page; they sign in there.
  const redirectUri = `${base}/callback-ish`;
  const app = (await (
    await fetch(`${base}/api/v1/apps`, { method: 'POST', body: new URLSearchParams({ client_name: 'Bird app', redirect_uris: redirectUri, scopes: 'read' }) })
  ).json()) as { client_id: string; client_secret: string };
  await page.goto(`${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: redirectUri, scope: 'read' })}`);
  t.equal(await page.title(), 'Sign in - Birdhouse', 'signing up did not sign in');
  await page.getByLabel('E-mail address or username').fill('wren');
  await page.getByLabel('Password').fill('a good long password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/oauth\/authorize\?/);
  t.match(await page.locator('main').innerText(), /Bird app would like permission to access your account, @wren@/);
  await page.getByRole('button', { name: 'Authorize' }).click();
  await page.waitForURL(/\/callback-ish\?/);
  const code = new URL(page.url()).searchParams.get('code') ?? '';
  const token = (await (
    await fetch(`${base}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.client_id, client_secret: app.client_secret }),
    })
  ).json()) as { access_token: string };
  const me = await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token.access_token}` } });
  t.equal(me.status, 200);
  t.equal(((await me.json()) as { username: string }).username, 'wren', "the app acts for the new account");
});
