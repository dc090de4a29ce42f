// The Cookie header, read leniently as browsers write it: a malformed pair is skipped, never an
// error. Values are kept as sent (our session cookie needs no decoding).

const MAX_COOKIES = 50;
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export function parseCookies(header: string | string[] | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  const text = Array.isArray(header) ? header.join('; ') : header;
  if (text === undefined || text === '') return cookies;
  for (const pair of text.split(';', MAX_COOKIES)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    if (name === '' || FORBIDDEN.has(name) || Object.hasOwn(cookies, name)) continue;
    const value = pair.slice(eq + 1).trim();
    cookies[name] = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return cookies;
}
