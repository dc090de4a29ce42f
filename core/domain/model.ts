// The domain model: plain data, no behaviour. Timestamps are epoch milliseconds; ids are
// Mastodon-style sortable 64-bit integers carried as decimal strings (see ids.ts).

export type Id = string;
export type Millis = number;

export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface ProfileField {
  name: string;
  value: string; // plain source; rendered to HTML by the presenter
  verifiedAt: Millis | null;
}

export interface Account {
  id: Id;
  username: string;
  domain: string | null; // null for local accounts
  displayName: string;
  note: string; // plain source text of the bio
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  fields: ProfileField[];
  avatarUrl: string | null;
  headerUrl: string | null;
  url: string | null; // profile page of a remote account; local ones derive theirs
  uri: string | null; // ActivityPub id of a remote account
  createdAt: Millis;
  statusesCount: number;
  followersCount: number;
  followingCount: number;
  lastStatusAt: Millis | null;
  /** A local account's staff role ('Moderator', 'Admin', 'Owner': moderation/roles.ts); null
   * for everyone else. Kept on the account, so that a caller's permissions and the `roles` of
   * a rendered account cost no read of their own. */
  role: string | null;
  /** What moderators did to it (Mastodon's suspended_at, silenced_at, sensitized_at): when the
   * account was suspended (gone for everyone else, its sign-in refused), silenced (kept off
   * public timelines for those who do not follow it) or sensitized (its media always shown as
   * sensitive). Absent or null: not so. Read through moderation/account-state.ts. */
  suspendedAt?: Millis | null;
  silencedAt?: Millis | null;
  sensitizedAt?: Millis | null;
  /** When the account was deleted (by its owner, an admin, the operator, or its server): it is
   * gone for everyone from then on, while its data is removed in the background; the row stays,
   * so that its username is never taken again (Mastodon's reserved username). null: live. */
  deletedAt: Millis | null;
  /** The account it moved to (a `Move`): its followers were moved there. null: not moved. */
  movedToAccountId: Id | null;
  /** The ActivityPub ids of the accounts it says it also is (`alsoKnownAs`): a local account's
   * aliases, which let another account move to it. */
  alsoKnownAs: string[];
}

export interface UserSettings {
  defaultVisibility: Visibility;
  defaultSensitive: boolean;
  defaultLanguage: string | null;
  expandMedia: 'default' | 'show_all' | 'hide_all';
  expandSpoilers: boolean;
  /** Languages the user reads on public timelines and streams; null: all. */
  chosenLanguages?: string[] | null;
  /** Who may quote the user's new statuses unless a status says otherwise (absent: public). */
  defaultQuotePolicy?: 'public' | 'followers' | 'nobody';
}

/** The sign-in side of a local account. */
export interface User {
  accountId: Id;
  email: string;
  passwordHash: string;
  createdAt: Millis;
  confirmedAt: Millis | null;
  approved: boolean;
  disabled: boolean;
  locale: string;
  createdByApplicationId: Id | null;
  settings: UserSettings;
}

export interface Status {
  id: Id;
  accountId: Id;
  local: boolean;
  uri: string | null; // null for local statuses: derived from the instance domain
  url: string | null;
  text: string; // source text, as typed (after trimming)
  content: string; // HTML rendered from text when it was written
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToId: Id | null;
  inReplyToAccountId: Id | null;
  reblogOfId: Id | null; // set on a boost
  conversationId: Id; // shared by every status of one thread
  applicationId: Id | null;
  mentionIds: Id[]; // accounts mentioned, in order of first appearance
  tags: string[]; // normalized hashtag names (see text/tags), first appearance kept
  mediaIds: Id[];
  pollId: Id | null;
  createdAt: Millis;
  editedAt: Millis | null;
  deletedAt: Millis | null;
  repliesCount: number;
  reblogsCount: number;
  favouritesCount: number;
}

/** One revision of a status; the first edit also records the original. */
export interface StatusEdit {
  id: Id;
  statusId: Id;
  accountId: Id;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  mediaIds: Id[];
  pollOptions: string[] | null;
  createdAt: Millis;
}

export type MediaType = 'image' | 'gifv' | 'video' | 'audio' | 'unknown';

export interface MediaDimensions {
  width: number;
  height: number;
}

export interface MediaAttachment {
  id: Id;
  accountId: Id;
  statusId: Id | null;
  type: MediaType;
  url: string | null; // null while processing
  previewUrl: string | null;
  remoteUrl: string | null;
  description: string | null;
  blurhash: string | null;
  original: MediaDimensions | null;
  small: MediaDimensions | null;
  focus: { x: number; y: number } | null;
  extra: Record<string, number | string>; // length, duration, fps, bitrate for video/audio
  processed: boolean;
  createdAt: Millis;
}

export interface Poll {
  id: Id;
  statusId: Id | null;
  accountId: Id;
  options: string[];
  votes: number[]; // per option
  multiple: boolean;
  hideTotals: boolean;
  expiresAt: Millis | null;
  votesCount: number;
  votersCount: number;
  createdAt: Millis;
}

export interface ScheduledParams {
  text: string | null;
  mediaIds: Id[] | null;
  sensitive: boolean | null;
  spoilerText: string | null;
  visibility: Visibility | null;
  inReplyToId: Id | null;
  language: string | null;
  poll: { options: string[]; expiresIn: number; multiple: boolean; hideTotals: boolean } | null;
  idempotency: string | null;
  applicationId: Id | null;
  /** The quote asked for (absent in rows written before quotes). */
  quotedStatusId?: Id | null;
  quoteApprovalPolicy?: string | null;
}

export interface ScheduledStatus {
  id: Id;
  accountId: Id;
  scheduledAt: Millis;
  params: ScheduledParams;
  claimedUntil: Millis | null; // a publisher's lease, so that exactly one process publishes it
  createdAt: Millis;
}

export type CardType = 'link' | 'photo' | 'video' | 'rich';

export interface PreviewCard {
  id: Id;
  url: string;
  title: string;
  description: string;
  type: CardType;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  html: string;
  width: number;
  height: number;
  image: string | null;
  imageDescription: string;
  embedUrl: string;
  blurhash: string | null;
  language: string | null;
  publishedAt: Millis | null;
  fetchedAt: Millis;
}

export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface Notification {
  id: Id;
  accountId: Id; // recipient
  type: NotificationType;
  fromAccountId: Id;
  statusId: Id | null;
  /** The report an 'admin.report' notification is about; absent on every other type. */
  reportId?: Id;
  createdAt: Millis;
  /** Notifications of one group (favourites or boosts of one status, follows) within a time
   * window share it (notifications/groups.ts); null for the ones that are never grouped. */
  groupKey: string | null;
  /** Held back by the recipient's notification policy: shown only through notification
   * requests until accepted. */
  filtered: boolean;
}

export const NOTIFICATION_POLICY_ACTIONS = ['accept', 'filter', 'drop'] as const;
export type NotificationPolicyAction = (typeof NOTIFICATION_POLICY_ACTIONS)[number];

/** What happens to notifications from kinds of senders (Mastodon 4.3's policy). */
export interface NotificationPolicy {
  accountId: Id;
  forNotFollowing: NotificationPolicyAction;
  forNotFollowers: NotificationPolicyAction;
  forNewAccounts: NotificationPolicyAction;
  forPrivateMentions: NotificationPolicyAction;
  forLimitedAccounts: NotificationPolicyAction;
}

/** Filtered mentions from one sender, waiting for the recipient to accept or dismiss them. */
export interface NotificationRequest {
  id: Id;
  accountId: Id;
  fromAccountId: Id;
  lastStatusId: Id | null;
  createdAt: Millis;
  updatedAt: Millis;
}

/** One account's view of a private conversation: the direct statuses of one thread among one
 * set of participants (Mastodon's AccountConversation). */
export interface AccountConversation {
  id: Id;
  accountId: Id;
  /** The thread (Status.conversationId). */
  conversationId: Id;
  /** The other participants (the status authors and mentioned accounts but the owner), in
   * ascending id order; empty for notes to oneself. */
  participantIds: Id[];
  lastStatusId: Id;
  unread: boolean;
}

export interface Application {
  id: Id;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
  clientId: string;
  clientSecretHash: string;
  createdAt: Millis;
}

export interface AccessToken {
  id: Id;
  tokenHash: string;
  applicationId: Id;
  accountId: Id | null; // null for an app token (client_credentials)
  scopes: string[];
  /** Digest of the refresh token issued with it (opt-in), or null. */
  refreshTokenHash: string | null;
  /** The authorization code it was issued for (absent for other grants): a replayed code
   * revokes it (RFC 6749 §4.1.2). */
  authorizationCodeId?: Id;
  createdAt: Millis;
  revokedAt: Millis | null;
}

export interface AuthorizationCode {
  id: Id;
  codeHash: string;
  applicationId: Id;
  accountId: Id;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null; // PKCE S256 challenge
  createdAt: Millis;
  expiresAt: Millis;
  usedAt: Millis | null;
}

/** A browser session of the OAuth sign-in pages. */
export interface WebSession {
  id: Id;
  idHash: string;
  accountId: Id | null;
  csrfToken: string;
  createdAt: Millis;
  expiresAt: Millis;
}

export interface Follow {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  showReblogs: boolean;
  notify: boolean;
  languages: string[] | null;
  createdAt: Millis;
}

export type FollowRequest = Follow;

export interface Block {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  createdAt: Millis;
}

export interface Mute {
  id: Id;
  accountId: Id;
  targetAccountId: Id;
  notifications: boolean;
  expiresAt: Millis | null;
  createdAt: Millis;
}

export const LIST_REPLIES_POLICIES = ['followed', 'list', 'none'] as const;
export type ListRepliesPolicy = (typeof LIST_REPLIES_POLICIES)[number];

export interface List {
  id: Id;
  accountId: Id;
  title: string;
  repliesPolicy: ListRepliesPolicy;
  exclusive: boolean;
  createdAt: Millis;
}

/** A local account's follow of a hashtag: `tag` is the normalized name (what statuses store),
 * `name` the name as the account first wrote it. */
export interface TagFollow {
  id: Id;
  accountId: Id;
  tag: string;
  name: string;
  createdAt: Millis;
}

/** A hashtag an account shows on its profile (normalized `tag`, `name` as written). */
export interface FeaturedTag {
  id: Id;
  accountId: Id;
  tag: string;
  name: string;
  createdAt: Millis;
}

/** Where a quote stands (Mastodon 4.5, FEP-044f): `pending` until the quoted author's server
 * authorizes it, `accepted` with the authorization, `rejected` when refused, `revoked` when the
 * quoted author withdrew it afterwards, `deleted` when the quoting side learned the quoted status
 * is gone, `unauthorized` when an authorization failed to verify. */
export const QUOTE_STATES = ['pending', 'accepted', 'rejected', 'revoked', 'deleted', 'unauthorized'] as const;
export type QuoteState = (typeof QUOTE_STATES)[number];

/** Who may quote a status (Mastodon's `quote_approval_policy`): anyone, the author's followers, or
 * nobody but the author. */
export const QUOTE_POLICIES = ['public', 'followers', 'nobody'] as const;
export type QuotePolicy = (typeof QUOTE_POLICIES)[number];

/** A status quoting another: one per quoting status. */
export interface Quote {
  /** Its own id: the quotes list of the quoted status pages by it. */
  id: Id;
  /** The quoting status and its author. */
  statusId: Id;
  accountId: Id;
  /** The quoted status and its author (null when it was never resolved). */
  quotedStatusId: Id | null;
  quotedAccountId: Id | null;
  state: QuoteState;
  /** The QuoteAuthorization that accepted it (FEP-044f): the remote stamp for a quote of a remote
   * status, the one this server serves for a quote of a local status. */
  authorizationUri: string | null;
  /** The QuoteRequest activity asking for it (sent or received). */
  requestUri: string | null;
  createdAt: Millis;
  updatedAt: Millis;
}

/** An account the owner recommends on their profile (Mastodon's AccountPin). */
export interface Endorsement {
  id: Id;
  accountId: Id;
  targetId: Id;
  createdAt: Millis;
}

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];
export const FILTER_ACTIONS = ['warn', 'hide', 'blur'] as const;
export type FilterAction = (typeof FILTER_ACTIONS)[number];

export interface FilterKeyword {
  id: Id;
  keyword: string;
  wholeWord: boolean;
}

export interface FilterStatus {
  id: Id;
  statusId: Id;
}

export interface Filter {
  id: Id;
  accountId: Id;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  expiresAt: Millis | null;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
  createdAt: Millis;
}

export const MARKER_TIMELINES = ['home', 'notifications'] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

export interface Marker {
  accountId: Id;
  timeline: MarkerTimeline;
  lastReadId: Id;
  version: number;
  updatedAt: Millis;
}

/** A favourite, bookmark or pin: who, which status, and its own id (the pagination cursor). */
export interface StatusMark {
  id: Id;
  accountId: Id;
  statusId: Id;
  createdAt: Millis;
}

export const REPORT_CATEGORIES = ['spam', 'legal', 'violation', 'other'] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

/** A user's report of an account (and some of its statuses) to the instance's moderators. */
export interface Report {
  id: Id;
  accountId: Id; // who reported
  targetAccountId: Id;
  statusIds: Id[];
  comment: string;
  category: ReportCategory;
  /** Ids of the instance rules broken ('violation' only); null otherwise. */
  ruleIds: string[] | null;
  forwarded: boolean;
  assignedAccountId: Id | null;
  actionTakenAt: Millis | null; // resolved when set
  actionTakenByAccountId: Id | null;
  createdAt: Millis;
  updatedAt: Millis;
}

/** What an admin action is about (Mastodon's target_type). */
export type AdminTargetType = 'Report' | 'EmailDomainBlock' | 'CanonicalEmailBlock' | 'IpBlock' | 'DomainAllow' | 'DomainBlock' | 'Account' | 'User';

/** The server's own blocks and allows that the admin API manages, one kind each: an e-mail
 * domain, a canonical e-mail hash, an IP range (CIDR), a domain allowed to federate. `key` is
 * what makes one unique within its kind (the normalised domain, the hash, the CIDR). */
export type ServerBlockKind = 'email_domain' | 'canonical_email' | 'ip' | 'domain_allow';

export interface ServerBlock {
  id: Id;
  kind: ServerBlockKind;
  key: string;
  /** IP blocks only (Mastodon's IpBlock): severity, comment, expiry. */
  severity: string | null;
  comment: string;
  expiresAt: Millis | null;
  createdAt: Millis;
  updatedAt: Millis;
}

/** One thing a moderator did (Mastodon's admin action log), kept for the audit log. */
export interface AdminAction {
  id: Id;
  accountId: Id; // who did it
  action: string; // 'resolve', 'reopen', 'assigned_to_self', 'unassigned', 'update', 'create', 'destroy'
  targetType: AdminTargetType;
  targetId: Id;
  createdAt: Millis;
}
