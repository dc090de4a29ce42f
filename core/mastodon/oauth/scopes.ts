// Mastodon's OAuth scopes and their hierarchy (docs/behaviour.md, "OAuth"). A granted parent scope
// satisfies its children (`read` → `read:statuses`), never the reverse; the legacy `follow`
// scope satisfies the follow/block/mute scopes.

const READ = ['accounts', 'blocks', 'bookmarks', 'favourites', 'filters', 'follows', 'lists', 'mutes', 'notifications', 'search', 'statuses'];
const WRITE = ['accounts', 'blocks', 'bookmarks', 'conversations', 'favourites', 'filters', 'follows', 'lists', 'media', 'mutes', 'notifications', 'reports', 'statuses'];
const ADMIN = ['accounts', 'reports', 'domain_allows', 'domain_blocks', 'ip_blocks', 'email_domain_blocks', 'canonical_email_blocks'];
const FOLLOW_GRANTS = new Set(['read:blocks', 'read:follows', 'read:mutes', 'write:blocks', 'write:follows', 'write:mutes']);

export const ALL_SCOPES: readonly string[] = [
  'read',
  'write',
  'push',
  'profile',
  'follow',
  'admin:read',
  'admin:write',
  ...READ.map((s) => `read:${s}`),
  ...WRITE.map((s) => `write:${s}`),
  ...ADMIN.map((s) => `admin:read:${s}`),
  ...ADMIN.map((s) => `admin:write:${s}`),
];

const KNOWN = new Set(ALL_SCOPES);

export const DEFAULT_SCOPES: readonly string[] = ['read'];

export function isKnownScope(scope: string): boolean {
  return KNOWN.has(scope);
}

/** Scopes as sent: space separated (a `+` in a query string is a space too); duplicates dropped. */
export function parseScopes(value: string): string[] {
  return [...new Set(value.split(/[\s+]+/).filter((s) => s !== ''))];
}

/** Whether a granted scope satisfies a required one. */
export function grants(granted: string, required: string): boolean {
  if (granted === required || required.startsWith(`${granted}:`)) return true;
  return granted === 'follow' && FOLLOW_GRANTS.has(required);
}

/** An endpoint accepts a list of scopes; holding any one of them suffices. */
export function satisfiesAny(granted: readonly string[], accepted: readonly string[]): boolean {
  if (accepted.length === 0) return true;
  return accepted.some((required) => granted.some((g) => grants(g, required)));
}

/** Spec part 5.3: requested scopes must be known and literally among the registered ones. */
export function isSubset(requested: readonly string[], registered: readonly string[]): boolean {
  return requested.every((scope) => isKnownScope(scope) && registered.includes(scope));
}
