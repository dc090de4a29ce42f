// E-mail domain blocks and canonical e-mail blocks (Mastodon 4.4's EmailDomainBlock and
// CanonicalEmailBlock): what admins with manage_blocks keep, and what sign-up checks. A blocked
// domain also blocks its subdomains; a canonical block matches an address whatever its case, dots
// and +suffix in the local part (Mastodon strips them for every domain) by its SHA-256 hash.
// Domain allows (manage_federation) share the domain form and live here too.

import type { Core } from '../context.ts';
import { RookeryError, type FieldError } from '../errors.ts';
import type { Account, ServerBlock } from '../model.ts';
import { adminAction, newBlock } from './server-blocks.ts';

/** Longest domain name (RFC 1035) and the longest key we take for a hash. */
const DOMAIN_LIMIT = 253;
const HASH_LIMIT = 255;

const invalid = (message: string) => new RookeryError(422, `Validation failed: ${message}`);

/** Lowercase, without a trailing dot, in ASCII (punycode); null when it is no domain name. */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().toLowerCase().replace(/\.$/, '');
  // Anything a URL would read as more than a host name ("a/b" → "a") is no domain.
  if (trimmed === '' || trimmed.length > DOMAIN_LIMIT * 4 || /[\s/\\:@?#[\]%]/.test(trimmed)) return null;
  let host: string;
  try {
    host = new URL(`http://${trimmed}/`).hostname;
  } catch {
    return null;
  }
  if (host.length > DOMAIN_LIMIT || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host)) return null;
  return host;
}

/** Mastodon's canonical form: lowercase; in the local part, no dots and nothing from the first '+'. */
export function canonicalEmail(email: string): string {
  const lower = email.toLowerCase();
  const at = lower.indexOf('@');
  const local = at === -1 ? lower : lower.slice(0, at);
  const domain = at === -1 ? '' : lower.slice(at + 1);
  const base = local.replaceAll('.', '').split('+')[0] ?? '';
  return at === -1 ? base : `${base}@${domain}`;
}

/** SHA-256 of the canonical form, in hex (Mastodon's canonical_email_hash). */
export async function canonicalEmailHash(email: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonicalEmail(email)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The domain and every parent of it ("a.b.example" → a.b.example, b.example, example). */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).slice(0, 100);
}

// ---- what admins do ----------------------------------------------------------------------------

export async function createEmailDomainBlock(core: Core, by: Account, domain: string | undefined): Promise<ServerBlock> {
  if (domain === undefined || domain.trim() === '') throw invalid("Domain can't be blank");
  const key = normalizeDomain(domain);
  if (key === null) throw invalid('Domain is invalid');
  const block = newBlock(core, 'email_domain', key);
  if (!(await core.storage.serverBlocks.create(block, adminAction(core, by, 'create', 'EmailDomainBlock', block.id)))) throw invalid('Domain has already been taken');
  return block;
}

export async function createCanonicalEmailBlock(core: Core, by: Account, input: { email?: string | undefined; hash?: string | undefined }): Promise<ServerBlock> {
  // An e-mail wins over a hash, as Mastodon's email= setter runs after the hash is assigned.
  const hash = input.email !== undefined && input.email !== '' ? await canonicalEmailHash(input.email) : (input.hash ?? '');
  if (hash === '') throw invalid("Canonical email hash can't be blank");
  if (hash.length > HASH_LIMIT) throw invalid('Canonical email hash is too long (maximum is 255 characters)');
  const block = newBlock(core, 'canonical_email', hash);
  if (!(await core.storage.serverBlocks.create(block, adminAction(core, by, 'create', 'CanonicalEmailBlock', block.id)))) throw invalid('Canonical email hash has already been taken');
  return block;
}

/** Domains allowed to federate (Mastodon's DomainAllow): creating one that exists answers it
 * as it is, recording nothing, as Mastodon's controller does. */
export async function createDomainAllow(core: Core, by: Account, domain: string | undefined): Promise<ServerBlock> {
  if (domain === undefined || domain.trim() === '') throw invalid("Domain can't be blank");
  const key = normalizeDomain(domain);
  if (key === null) throw invalid('Domain is invalid');
  const [existing] = await core.storage.serverBlocks.withKeys('domain_allow', [key]);
  if (existing !== undefined) return existing;
  const allow = newBlock(core, 'domain_allow', key);
  if (await core.storage.serverBlocks.create(allow, adminAction(core, by, 'create', 'DomainAllow', allow.id))) return allow;
  // Made by someone else in the meantime.
  const [made] = await core.storage.serverBlocks.withKeys('domain_allow', [key]);
  if (made === undefined) throw invalid('Domain has already been taken');
  return made;
}

/** Limited federation mode (Mastodon's LIMITED_FEDERATION_MODE): whether `domain` (a host, with
 * or without a port: allows name hosts) is outside the operator's allow-list, that is no allow
 * names it or a parent of it. Always false when the mode is off. */
export async function outsideAllowList(core: Core, domain: string): Promise<boolean> {
  if (!core.config.limitedFederation) return false;
  const host = normalizeDomain(domain.replace(/:\d{1,5}$/, ''));
  if (host === null) return true;
  return (await core.storage.serverBlocks.withKeys('domain_allow', domainAndParents(host))).length === 0;
}

/** The canonical blocks an address matches (POST …/canonical_email_blocks/test). */
export async function matchingCanonicalBlocks(core: Core, email: string): Promise<ServerBlock[]> {
  return core.storage.serverBlocks.withKeys('canonical_email', [await canonicalEmailHash(email)]);
}

// ---- sign-up --------------------------------------------------------------------------------

/** What sign-up refuses about an address (Mastodon's BlacklistedEmailValidator): a blocked
 * e-mail domain, or a canonical block (reported as taken, as Mastodon does). */
export async function emailBlockErrors(core: Core, email: string): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const domain = normalizeDomain(email.slice(email.lastIndexOf('@') + 1));
  if (domain !== null && (await core.storage.serverBlocks.withKeys('email_domain', domainAndParents(domain))).length > 0) {
    errors.push({ field: 'email', label: 'Email', code: 'ERR_BLOCKED', description: 'uses a disallowed e-mail provider' });
  }
  if ((await matchingCanonicalBlocks(core, email)).length > 0) errors.push({ field: 'email', label: 'Email', code: 'ERR_TAKEN', description: 'is already taken' });
  return errors;
}
