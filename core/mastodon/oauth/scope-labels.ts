// What each scope lets an application do, in words, for the consent page.

const LABELS: Readonly<Record<string, string>> = {
  read: "read all your account's data",
  write: "modify all your account's data",
  follow: 'modify account relationships',
  push: 'receive your push notifications',
  profile: 'read only your account profile information',
  'admin:read': 'read all data on the server',
  'admin:write': 'modify all data on the server',
  'read:accounts': 'see accounts information',
  'read:blocks': 'see your blocks',
  'read:bookmarks': 'see your bookmarks',
  'read:favourites': 'see your favourites',
  'read:filters': 'see your filters',
  'read:follows': 'see your follows',
  'read:lists': 'see your lists',
  'read:mutes': 'see your mutes',
  'read:notifications': 'see your notifications',
  'read:search': 'search on your behalf',
  'read:statuses': 'see all posts',
  'write:accounts': 'modify your profile',
  'write:blocks': 'block accounts and domains',
  'write:bookmarks': 'bookmark posts',
  'write:conversations': 'mute and delete conversations',
  'write:favourites': 'favourite posts',
  'write:filters': 'create filters',
  'write:follows': 'follow people',
  'write:lists': 'create lists',
  'write:media': 'upload media files',
  'write:mutes': 'mute people and conversations',
  'write:notifications': 'clear your notifications',
  'write:reports': 'report other people',
  'write:statuses': 'publish posts',
};

export function scopeLabel(scope: string): string {
  if (LABELS[scope] !== undefined) return LABELS[scope];
  if (scope.startsWith('admin:read:')) return `read ${scope.slice('admin:read:'.length).replace(/_/g, ' ')} on the server`;
  if (scope.startsWith('admin:write:')) return `moderate ${scope.slice('admin:write:'.length).replace(/_/g, ' ')} on the server`;
  return scope;
}
