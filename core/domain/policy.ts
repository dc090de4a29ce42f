// The one visibility and permission policy: who may view a status, read its context, boost,
// pin or favourite it. Pure functions over facts gathered by the caller, so every rule is in
// this file and the matrix can be tested exhaustively.

import { RookeryError, forbidden, notFound, texts, unprocessable } from './errors.ts';
import type { Account, Id, Millis, Mute, QuotePolicy, Status, Visibility } from './model.ts';

// ---- what moderation does to an account (Mastodon's suspended?, silenced?, sensitized?) ----

/** A suspended account is gone for everyone else: its profile is blanked, its statuses unseen,
 * and it can neither sign in nor use its tokens. */
export function isSuspended(account: Pick<Account, 'suspendedAt'>): boolean {
  return account.suspendedAt !== undefined && account.suspendedAt !== null;
}

/** A local account may sign in and use its tokens unless its user is disabled or the account
 * is suspended (undoing either restores both), or it was deleted (for good). */
export function maySignIn(account: Pick<Account, 'suspendedAt' | 'deletedAt'>, user: { disabled: boolean }): boolean {
  return !user.disabled && !isSuspended(account) && account.deletedAt === null;
}

/** A silenced (limited) account stays off public timelines and threads for those who do not
 * follow it. */
export function isSilenced(account: Pick<Account, 'silencedAt'>): boolean {
  return account.silencedAt !== undefined && account.silencedAt !== null;
}

/** What a silenced author publishes as public goes out unlisted (Mastodon's rule). */
export function visibilityFor(author: Pick<Account, 'silencedAt'>, requested: Visibility): Visibility {
  return requested === 'public' && isSilenced(author) ? 'unlisted' : requested;
}

/** A sensitized account's media are always shown as sensitive. */
export function isSensitized(account: Pick<Account, 'sensitizedAt'>): boolean {
  return account.sensitizedAt !== undefined && account.sensitizedAt !== null;
}

/** What the policy needs to know about one viewer and one status's author. */
export interface ViewerFacts {
  /** null for an anonymous viewer (or an app token acting for nobody). */
  viewerId: Id | null;
  /** The viewer follows the author. */
  followsAuthor: boolean;
  /** The author blocks the viewer. */
  blockedByAuthor: boolean;
  /** The viewer blocks the author. */
  blocksAuthor: boolean;
  /** The author is suspended (absent: not). */
  authorSuspended?: boolean;
  /** The author is silenced (absent: not). */
  authorSilenced?: boolean;
  /** The viewer mutes the author (a mute in force), or blocks the author's domain: what a quote
   * of the author's status tells the viewer instead of showing it. Absent: neither. */
  mutesAuthor?: boolean;
  blocksDomain?: boolean;
}

export const anonymousFacts: ViewerFacts = { viewerId: null, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false };

export function isAuthor(status: Status, facts: ViewerFacts): boolean {
  return facts.viewerId !== null && facts.viewerId === status.accountId;
}

export function isMentioned(status: Status, facts: ViewerFacts): boolean {
  return facts.viewerId !== null && status.mentionIds.includes(facts.viewerId);
}

/** May the viewer see this status (and so read its context, boosters and favouriters)? */
export function canView(status: Status, facts: ViewerFacts): boolean {
  if (status.deletedAt !== null) return false;
  if (facts.authorSuspended === true) return false;
  if (isAuthor(status, facts)) return true;
  if (facts.blockedByAuthor) return false;
  switch (status.visibility) {
    case 'public':
    case 'unlisted':
      return true;
    case 'private':
      return facts.followsAuthor || isMentioned(status, facts);
    case 'direct':
      return isMentioned(status, facts);
  }
}

/** The visibilities canView lets this viewer read of one author's statuses, mentions aside:
 * what a store query may narrow to before canView checks each status. */
export function readableVisibilities(facts: ViewerFacts, authorId: Id): Visibility[] {
  if (facts.authorSuspended === true) return [];
  if (facts.viewerId === null) return ['public', 'unlisted'];
  if (facts.viewerId === authorId) return ['public', 'unlisted', 'private', 'direct'];
  if (facts.blockedByAuthor) return [];
  return facts.followsAuthor ? ['public', 'unlisted', 'private'] : ['public', 'unlisted'];
}

/** Public and hashtag timelines and streams: public, not a boost, not a reply to someone else. */
export function isPublicTimelineStatus(status: Status): boolean {
  return (
    status.visibility === 'public' &&
    status.reblogOfId === null &&
    (status.inReplyToAccountId === null || status.inReplyToAccountId === status.accountId)
  );
}

/** Public and hashtag timelines and threads leave out a silenced author's statuses, unless the
 * viewer follows the author or is the author. */
export function showsSilencedAuthor(status: Status, facts: ViewerFacts): boolean {
  return facts.authorSilenced !== true || facts.followsAuthor || isAuthor(status, facts);
}

/** Hashtag timelines include public replies. */
export function isHashtagTimelineStatus(status: Status): boolean {
  return status.visibility === 'public' && status.reblogOfId === null;
}

/** Counts toward the author's statuses_count: everything but direct messages. */
export function countsForAuthor(status: Status): boolean {
  return status.visibility !== 'direct';
}

/** Counts toward the parent's replies_count: public and unlisted replies only. */
export function countsAsReply(status: Status): boolean {
  return status.inReplyToId !== null && (status.visibility === 'public' || status.visibility === 'unlisted');
}

// Each check below returns null when allowed, or the error to answer with. Visibility comes
// first everywhere: a status the viewer cannot see does not exist for them (404, never 403).

export function checkView(status: Status, facts: ViewerFacts): RookeryError | null {
  return canView(status, facts) ? null : notFound();
}

export const checkContext = checkView;

export function checkFavourite(status: Status, facts: ViewerFacts): RookeryError | null {
  if (!canView(status, facts)) return notFound();
  if (facts.blocksAuthor) return forbidden();
  return null;
}

export function checkBookmark(status: Status, facts: ViewerFacts): RookeryError | null {
  return checkView(status, facts);
}

export function checkMute(status: Status, facts: ViewerFacts): RookeryError | null {
  return checkView(status, facts);
}

/** Boosting needs a visible status that is public or unlisted, or private and the viewer's own. */
export function checkBoost(status: Status, facts: ViewerFacts): RookeryError | null {
  if (!canView(status, facts)) return notFound();
  if (status.visibility === 'direct') return forbidden();
  if (status.visibility === 'private' && !isAuthor(status, facts)) return forbidden();
  if (facts.blocksAuthor) return forbidden();
  return null;
}

/** Spec part 3: only the user's own, public statuses that are not boosts can be pinned. */
export function checkPin(status: Status, facts: ViewerFacts): RookeryError | null {
  if (!canView(status, facts)) return notFound();
  if (!isAuthor(status, facts)) return unprocessable(texts.pinOthers);
  if (status.reblogOfId !== null) return unprocessable(texts.pinBoost);
  if (status.visibility !== 'public') return unprocessable(texts.pinNonPublic);
  return null;
}

/** The visibility a boost gets: a private original keeps its own; otherwise the requested one
 * (public, unlisted or private), else the booster's default. */
export function boostVisibility(original: Status, requested: string | undefined, fallback: Visibility): Visibility | RookeryError {
  if (original.visibility === 'private' || original.visibility === 'direct') return original.visibility;
  if (requested === undefined || requested === '') return fallback === 'direct' ? 'public' : fallback;
  if (requested === 'direct') return unprocessable(texts.visibilityReserved);
  if (requested === 'public' || requested === 'unlisted' || requested === 'private') return requested;
  return unprocessable(texts.visibilityInvalid);
}

/** A mute counts until it expires. */
export function activeMute(mute: Mute | null, now: Millis): Mute | null {
  return mute !== null && (mute.expiresAt === null || mute.expiresAt > now) ? mute : null;
}

/** How a status's quote policy applies to a would-be quoter (Mastodon's
 * quote_policy_for_account): `automatic` (the quote is accepted at once), `manual` (the author
 * decides), `denied`. Nobody quotes a direct status or a boost; its author quotes anything else;
 * others only public or unlisted statuses, as the policy says. */
export type QuoteDecision = 'automatic' | 'manual' | 'denied';

export function quoteDecision(status: Status, policy: QuotePolicy, facts: ViewerFacts): QuoteDecision {
  if (facts.viewerId === null || status.visibility === 'direct' || status.reblogOfId !== null) return 'denied';
  if (isAuthor(status, facts)) return 'automatic';
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return 'denied';
  if (policy === 'public') return 'automatic';
  if (policy === 'followers' && facts.followsAuthor) return 'automatic';
  return 'denied';
}

/** May the viewer quote this status? It must see it, and the policy must not deny it. */
export function canQuote(status: Status, policy: QuotePolicy, facts: ViewerFacts): boolean {
  return canView(status, facts) && quoteDecision(status, policy, facts) !== 'denied';
}

/** The policy a local status keeps: a private or direct one is quotable by nobody but its author. */
export function storedQuotePolicy(visibility: Visibility, requested: QuotePolicy): QuotePolicy {
  return visibility === 'public' || visibility === 'unlisted' ? requested : 'nobody';
}
