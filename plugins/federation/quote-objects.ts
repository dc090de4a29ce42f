// The quote parts of Notes (FEP-044f, as Mastodon 4.5 writes them): what a local Note states
// (`quote` and `quoteUrl`, which Fedify also writes as `_misskey_quote` and `quoteUri`; the
// `quoteAuthorization` of an accepted quote; `interactionPolicy.canQuote`), and what a remote
// Note states, its authorization verified (quotes.ts has the activities).

import { accountUri, quotePolicyOf, statusUri, type Account, type Id, type PluginHost, type Quote, type QuotePolicy, type RemoteQuoteInput, type Status } from 'rookery/plugin-kit';
import type { Context } from '@fedify/fedify';
import { InteractionPolicy, InteractionRule, Note, PUBLIC_COLLECTION, QuoteAuthorization, Question, type Actor } from '@fedify/fedify/vocab';

/** The suffix of the id of the QuoteRequest this server sends for a local quote (the quoting
 * status's id with it): an Accept or Reject naming it leads back to the quote without storage. */
export const REQUEST_SUFFIX = '#quote-request';

export function requestUriOf(quotingUri: string): string {
  return `${quotingUri}${REQUEST_SUFFIX}`;
}

/** The stamp this server serves for an accepted quote of a local status: named by the quoting
 * status (one quote each). */
export function stampUriOf(host: PluginHost, quotedAuthor: Account, quote: Quote): string {
  return `${accountUri(host.config, quotedAuthor)}/quote_authorizations/${quote.statusId}`;
}

export async function quoteOf(host: PluginHost, statusId: Id): Promise<Quote | null> {
  return (await host.system.quotes.ofStatuses([statusId])).get(statusId) ?? null;
}

/** The uri of a stored status and its author. */
export async function uriOf(host: PluginHost, statusId: Id | null): Promise<{ status: Status; author: Account; uri: string } | null> {
  const status = statusId === null ? null : await host.system.statuses.get(statusId);
  const author = status === null ? null : await host.system.accounts.get(status.accountId);
  if (status === null || author === null) return null;
  return { status, author, uri: statusUri(host.config, status, author) };
}

/** The quote parts of a local status's Note. */
export async function noteQuoteValues(
  ctx: Context<PluginHost>,
  host: PluginHost,
  status: Status,
  author: Account,
): Promise<{ interactionPolicy: InteractionPolicy; quote?: URL; quoteUrl?: URL; quoteAuthorization?: URL }> {
  const [stored, quote] = await Promise.all([host.system.quotes.policies([status.id]), quoteOf(host, status.id)]);
  const policy = quotePolicyOf(status, stored.get(status.id));
  // Mastodon's: the approved audience, else the author alone (nobody else may).
  const approved = policy === 'public' ? [PUBLIC_COLLECTION] : policy === 'followers' ? [ctx.getFollowersUri(author.username)] : [ctx.getActorUri(author.username)];
  const values: { interactionPolicy: InteractionPolicy; quote?: URL; quoteUrl?: URL; quoteAuthorization?: URL } = {
    interactionPolicy: new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals: approved }) }),
  };
  if (quote === null || (quote.state !== 'accepted' && quote.state !== 'pending')) return values;
  const quoted = await uriOf(host, quote.quotedStatusId);
  if (quoted === null) return values;
  values.quote = new URL(quoted.uri);
  values.quoteUrl = new URL(quoted.uri);
  if (quote.state === 'accepted') {
    const stamp = quoted.status.local ? stampUriOf(host, quoted.author, quote) : quote.authorizationUri;
    if (stamp !== null) values.quoteAuthorization = new URL(stamp);
  }
  return values;
}

/** The policy a remote Note states (its canQuote's automatic approvals), or null when it states
 * none. */
function statedPolicy(object: Note | Question, actor: Actor | null): QuotePolicy | null {
  const rule = object.interactionPolicy?.canQuote ?? null;
  if (object.interactionPolicy === null) return null;
  const approvals = rule === null ? [] : rule.automaticApprovals.map((url) => url.href);
  if (approvals.some((href) => href === PUBLIC_COLLECTION.href || href === 'as:Public' || href === 'Public')) return 'public';
  const followers = actor?.followersId?.href;
  if (followers !== undefined && approvals.includes(followers)) return 'followers';
  return 'nobody';
}

/** What a remote Note states about quoting: the status it quotes (stored, through `resolve`,
 * which may fetch it) with its authorization verified, and its own policy. */
export async function noteQuoteInput(
  host: PluginHost,
  object: Note | Question,
  actor: Actor | null,
  resolve: (uri: URL) => Promise<Id | null>,
): Promise<{ quote: RemoteQuoteInput | null; quotePolicy: QuotePolicy | null }> {
  const quotePolicy = statedPolicy(object, actor);
  const target = object instanceof Note || object instanceof Question ? (object.quoteId ?? object.quoteUrl) : null;
  if (target === null || object.id === null) return { quote: null, quotePolicy };
  const quotedStatusId = await resolve(target).catch(() => null);
  const quoted = await uriOf(host, quotedStatusId);
  // It quotes something this server could not get: not "no quote" (an edit keeps its quote).
  if (quoted === null) return { quote: { quotedStatusId: null, authorizationUri: null }, quotePolicy };
  let authorizationUri: string | null = null;
  // A stamp counts only from the quoted author's server, naming this very quote. A local quoted
  // status needs none: the core applies its policy.
  if (!quoted.status.local && object.quoteAuthorizationId !== null && object.quoteAuthorizationId.origin === new URL(quoted.uri).origin) {
    const stamp = await object.getQuoteAuthorization({ suppressError: true }).catch(() => null);
    if (stamp instanceof QuoteAuthorization && stamp.id?.href === object.quoteAuthorizationId.href && stamp.interactingObjectId?.href === object.id.href && stamp.interactionTargetId?.href === quoted.uri) {
      authorizationUri = stamp.id.href;
    }
  }
  return { quote: { quotedStatusId: quoted.status.id, authorizationUri }, quotePolicy };
}


/** A stored status by its uri (a local one by its path), without fetching: what a status
 * fetched on its own resolves its quote with, so that a chain of quotes is never followed. */
export async function storedStatusId(host: PluginHost, uri: URL): Promise<Id | null> {
  if (uri.href.startsWith(`${host.config.baseUrl}/users/`)) return /\/statuses\/(\d+)$/.exec(uri.pathname)?.[1] ?? null;
  return (await host.system.statuses.findByUri(uri.href))?.id ?? null;
}
