// The operator's domain blocks: which remote hosts this instance refuses to federate with.
// Domains are kept in one canonical form (lower case, IDN as punycode, no trailing dot), and a
// block covers the domain and every subdomain of it. A block may name a port
// ("localhost:4323": that instance only); a block without one covers every port.

import { unprocessable } from 'rookery/plugin-kit';
import { domainToASCII } from 'node:url';

/** Longest domain (with its port) and block reason we keep. */
export const MAX_DOMAIN_LENGTH = 260;
export const MAX_REASON_LENGTH = 1000;

export const domainTexts = {
  invalid: (input: string) => `Invalid domain: ${JSON.stringify(input.slice(0, 100))}`,
  reasonTooLong: `The reason is longer than ${MAX_REASON_LENGTH} characters`,
} as const;

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The canonical form of a domain (optionally with :port), or null when it is not one. */
export function canonicalDomain(input: string): string | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_DOMAIN_LENGTH) return null;
  let host = input.trim().toLowerCase();
  let port = '';
  const withPort = /^(.*?):(\d{1,5})$/.exec(host);
  if (withPort !== null && !host.startsWith('[') && (withPort[1] ?? '').includes(':') === false) {
    host = withPort[1] ?? '';
    port = withPort[2] ?? '';
  } else {
    const v6 = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(host);
    if (v6 !== null) {
      host = v6[1] ?? '';
      port = v6[2] ?? '';
    }
  }
  if (port !== '' && (Number(port) < 1 || Number(port) > 65535 || String(Number(port)) !== port)) return null;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0) return null;
  // Only a domain or an IPv4 literal as written: WHATWG would read "1" as 0.0.0.1.
  if (/^[\d.]+$/.test(host) && !IPV4.test(host)) return null;
  const ascii = domainToASCII(host);
  if (ascii === '' || ascii.length > 253) return null;
  if (!ascii.startsWith('[') && !ascii.split('.').every((label) => LABEL.test(label))) return null;
  return port === '' ? ascii : `${ascii}:${port}`;
}

/** canonicalDomain, or a 422 RookeryError naming the input. */
export function normalizeDomain(input: string): string {
  const domain = canonicalDomain(input);
  if (domain === null) throw unprocessable(domainTexts.invalid(String(input)));
  return domain;
}

/** The block entries that would cover `domain` (canonical): itself, itself without its port,
 * and each parent domain (not for IP literals). */
export function coveringDomains(domain: string): string[] {
  const out = [domain];
  const portAt = domain.startsWith('[') ? domain.indexOf(']:') + 1 : domain.lastIndexOf(':');
  const host = portAt > 0 ? domain.slice(0, portAt) : domain;
  if (host !== domain) out.push(host);
  if (host.startsWith('[') || IPV4.test(host)) return out;
  let rest = host;
  for (let dot = rest.indexOf('.'); dot !== -1; dot = rest.indexOf('.')) {
    rest = rest.slice(dot + 1);
    out.push(rest);
  }
  return out;
}
