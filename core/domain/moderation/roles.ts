// Staff roles, as Mastodon 4.4 seeds them (config/roles.yml): Moderator, Admin and Owner, each a
// set of permission bits (Mastodon's role flags). A local account without a role has the "everyone"
// role (id -99), whose only permission is inviting users; every role adds to it, and the
// administrator bit grants every permission.

export const PERMISSIONS = {
  administrator: 1 << 0,
  view_devops: 1 << 1,
  view_audit_log: 1 << 2,
  view_dashboard: 1 << 3,
  manage_reports: 1 << 4,
  manage_federation: 1 << 5,
  manage_settings: 1 << 6,
  manage_blocks: 1 << 7,
  manage_taxonomies: 1 << 8,
  manage_appeals: 1 << 9,
  manage_users: 1 << 10,
  manage_invites: 1 << 11,
  manage_rules: 1 << 12,
  manage_announcements: 1 << 13,
  manage_custom_emojis: 1 << 14,
  manage_webhooks: 1 << 15,
  invite_users: 1 << 16,
  manage_roles: 1 << 17,
  manage_user_access: 1 << 18,
  delete_user_data: 1 << 19,
  view_feeds: 1 << 20,
} as const;

export type Permission = keyof typeof PERMISSIONS;

const ALL = Object.values(PERMISSIONS).reduce((all, bit) => all | bit, 0);

export const ROLE_NAMES = ['Moderator', 'Admin', 'Owner'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export interface Role {
  /** Mastodon's ids: -99 for everyone, then the seeded roles in their order (1, 2, 3). */
  id: string;
  name: string;
  /** Its own bits; `computedPermissions` adds everyone's and expands administrator. */
  permissions: number;
  color: string;
  highlighted: boolean;
  position: number;
}

function bits(...names: Permission[]): number {
  return names.reduce((all, name) => all | PERMISSIONS[name], 0);
}

export const EVERYONE: Role = Object.freeze({ id: '-99', name: '', permissions: bits('invite_users'), color: '', highlighted: false, position: -1 });

const MODERATOR_BITS: Permission[] = ['invite_users', 'view_dashboard', 'view_audit_log', 'view_feeds', 'manage_users', 'manage_reports', 'manage_taxonomies'];

const ROLES: Readonly<Record<RoleName, Role>> = Object.freeze({
  Moderator: Object.freeze({ id: '1', name: 'Moderator', permissions: bits(...MODERATOR_BITS), color: '', highlighted: true, position: 10 }),
  Admin: Object.freeze({
    id: '2',
    name: 'Admin',
    permissions: bits(
      ...MODERATOR_BITS,
      'manage_user_access',
      'delete_user_data',
      'manage_federation',
      'manage_settings',
      'manage_blocks',
      'manage_appeals',
      'manage_rules',
      'manage_invites',
      'manage_announcements',
      'manage_custom_emojis',
      'manage_webhooks',
      'manage_roles',
    ),
    color: '',
    highlighted: true,
    position: 100,
  }),
  Owner: Object.freeze({ id: '3', name: 'Owner', permissions: bits('administrator'), color: '', highlighted: true, position: 1000 }),
});

export function isRoleName(value: unknown): value is RoleName {
  return typeof value === 'string' && (ROLE_NAMES as readonly string[]).includes(value);
}

/** The role an account holds: its own, or everyone's. */
export function roleOf(name: string | null): Role {
  return isRoleName(name) ? ROLES[name] : EVERYONE;
}

/** What a role may do: everyone's bits and its own; all of them with administrator. */
export function computedPermissions(role: Role): number {
  if (role === EVERYONE) return role.permissions;
  const own = EVERYONE.permissions | role.permissions;
  return (own & PERMISSIONS.administrator) !== 0 ? ALL : own;
}

/** Whether an account with this role name may do any of `permissions`. */
export function can(roleName: string | null, ...permissions: Permission[]): boolean {
  const granted = computedPermissions(roleOf(roleName));
  return permissions.some((permission) => (granted & PERMISSIONS[permission]) === PERMISSIONS[permission]);
}
