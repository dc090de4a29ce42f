// Shortcuts for OAuth tests over HTTP: registering apps, PKCE pairs, and a tiny browser (a
// cookie jar and the hidden fields of our forms) to walk the authorization pages.

import { createHash, randomBytes } from 'node:crypto';
import type { Harness } from './harness.ts';

export const CALLBACK = 'https://app.example/callback';
export const OOB = 'urn:ietf:wg:oauth:2.0:oob';
export const PASSWORD = 'correct horse battery';

export interface RegisteredApp {
  id: string;
  name: string;
  client_id: string;
  client_secret: string;
  scopes: string[];
  redirect_uris: string[];
  [key: string]: unknown;
}

export async function registerApp(h: Harness, payload: Record<string, unknown> = {}): Promise<RegisteredApp> {
  const res = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'Test app', redirect_uris: CALLBACK, scopes: 'read write follow', ...payload } });
  if (res.statusCode !== 200) throw new Error(`app registration failed: ${res.statusCode} ${res.body}`);
  return res.json as RegisteredApp;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export function authorizeQuery(app: RegisteredApp, extra: Record<string, string | undefined> = {}): string {
  const values: Record<string, string> = { response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect_uris[0] ?? CALLBACK };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete values[name];
    else values[name] = value;
  }
  return new URLSearchParams(values).toString();
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');
}

/** The hidden inputs of each form on a page, in order. */
export function forms(html: string): { action: string; fields: Record<string, string> }[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((match) => {
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields[decodeEntities(input[1] ?? '')] = decodeEntities(input[2] ?? '');
    }
    return { action: decodeEntities(match[1] ?? ''), fields };
  });
}

export interface PageResponse {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
  location: string | undefined;
  setCookies: string[];
}

/** A user agent with a cookie jar (one cookie is all our pages use). */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly h: Harness;
  constructor(h: Harness) {
    this.h = h;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async send(method: string, url: string, form?: Record<string, string>): Promise<PageResponse> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers['cookie'] = this.cookieHeader;
    const options: { method: string; url: string; headers: Record<string, string>; payload?: string } = { method, url, headers };
    if (form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      options.payload = new URLSearchParams(form).toString();
    }
    const res = await this.h.server.inject(options);
    const raw = res.headers['set-cookie'];
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
    for (const cookie of setCookies) {
      const [pair] = cookie.split(';');
      const eq = (pair ?? '').indexOf('=');
      if (eq > 0) this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers['location'];
    return { statusCode: res.statusCode, body: res.payload, headers: res.headers as Record<string, unknown>, location: location === undefined ? undefined : String(location), setCookies };
  }

  get(url: string): Promise<PageResponse> {
    return this.send('GET', url);
  }

  post(url: string, form: Record<string, string>): Promise<PageResponse> {
    return this.send('POST', url, form);
  }

  /** Opens the authorize URL, signs in when asked, and returns the consent page. */
  async consent(query: string, login: string, password = PASSWORD): Promise<PageResponse> {
    let res = await this.get(`/oauth/authorize?${query}`);
    const signIn = forms(res.body).find((form) => form.action === '/auth/sign_in');
    if (signIn !== undefined) {
      res = await this.post('/auth/sign_in', { ...signIn.fields, 'user[email]': login, 'user[password]': password });
      if (res.statusCode !== 303 || res.location === undefined) throw new Error(`sign-in failed: ${res.statusCode}`);
      res = await this.get(res.location);
    }
    if (res.statusCode !== 200 || !res.body.includes('Authorization required')) throw new Error(`no consent page: ${res.statusCode} ${res.body}`);
    return res;
  }

  /** Clicks Authorize (first form) or Deny (second form) on a consent page. */
  decide(consentPage: string, choice: 'approve' | 'deny'): Promise<PageResponse> {
    const form = forms(consentPage)[choice === 'approve' ? 0 : 1];
    if (form === undefined) throw new Error('no decision form');
    return this.post(form.action, form.fields);
  }
}

/** Runs the whole browser part and returns the code sent to the redirect URI. */
export async function authorizationCode(h: Harness, app: RegisteredApp, login: string, extra: Record<string, string | undefined> = {}): Promise<string> {
  const browser = new Browser(h);
  const consent = await browser.consent(authorizeQuery(app, extra), login);
  const res = await browser.decide(consent.body, 'approve');
  const code = res.location === undefined ? null : new URL(res.location, 'https://rookery.test').searchParams.get('code');
  if (res.statusCode !== 302 || code === null) throw new Error(`no code: ${res.statusCode} ${res.location}`);
  return code;
}

export function tokenRequest(h: Harness, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return h.request('POST', '/oauth/token', { payload, headers });
}
