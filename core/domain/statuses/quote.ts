// Quote posts (Mastodon 4.5): quoting a status on publish, who may quote a status (its quote
// policy, policy.ts decides), the quotes of a status, revoking one, changing the policy. A quote
// of a local status the policy allows is accepted at once; a quote of a remote status waits,
// pending, for the remote server's authorization (the federation plugin asks for it).

import type { Core } from '../context.ts';
import { forbidden, notFound, RookeryError, texts, unprocessable } from '../errors.ts';
import { isId } from '../ids.ts';
import { QUOTE_POLICIES, type Account, type Id, type Millis, type Quote, type QuotePolicy, type Status, type User, type Visibility } from '../model.ts';
import type { Page } from '../ports/storage.ts';
import { str, type Params } from '../params.ts';
import { canQuote, storedQuotePolicy } from '../policy.ts';
import { factsOf, filterVisible, findLive, findVisible, viewerFacts, withoutHiddenAccounts } from '../viewer.ts';
import type { EventHandler } from '../queue/registry.ts';

/** The policy a status has: a local one without a stored policy is quotable by anyone (only
 * other policies are stored), a remote one that stated none by nobody; a private or direct one
 * by nobody but its author whatever is stored. */
export function effectivePolicy(status: Status, stored: QuotePolicy | undefined): QuotePolicy {
  return storedQuotePolicy(status.visibility, stored ?? (status.local ? 'public' : 'nobody'));
}

/** The user's default, for a status that names none. */
export function defaultQuotePolicy(user: User | null): QuotePolicy {
  return user?.settings.defaultQuotePolicy ?? 'public';
}

/** `quote_approval_policy` as sent; undefined when absent. Anything else than Mastodon's three
 * values is Mastodon's bare 422. */
export function readQuotePolicy(params: Params): QuotePolicy | undefined {
  const value = str(params, 'quote_approval_policy');
  if (value === undefined || value === '') return undefined;
  if (!(QUOTE_POLICIES as readonly string[]).includes(value)) throw unprocessable(texts.recordInvalid);
  return value as QuotePolicy;
}

/** The policies of these statuses (effectivePolicy), by id. */
export async function policiesOf(core: Core, statuses: readonly Status[]): Promise<Map<Id, QuotePolicy>> {
  const stored = statuses.length === 0 ? new Map<Id, QuotePolicy>() : await core.storage.quotes.policies(statuses.map((s) => s.id));
  return new Map(statuses.map((s) => [s.id, effectivePolicy(s, stored.get(s.id))]));
}

/** The policy row a new local status needs: none for the default (public). */
export function policyToStore(visibility: Visibility, requested: QuotePolicy): QuotePolicy | null {
  const policy = storedQuotePolicy(visibility, requested);
  return policy === 'public' || visibility === 'private' || visibility === 'direct' ? null : policy;
}

/** The status `quoted_status_id` names (a boost stands for its original), which the author must
 * be allowed to quote; null when none is asked for. Every refusal is Mastodon's one 404. */
export async function quoteTarget(core: Core, account: Account, params: Params): Promise<Status | null> {
  const id = str(params, 'quoted_status_id');
  if (id === undefined || id === '') return null;
  const missing = () => new RookeryError(404, texts.quotedMissing);
  let target: Status;
  try {
    const found = await findVisible(core, account, id);
    target = found.original ?? found.status;
  } catch {
    throw missing();
  }
  const [facts, policies] = await Promise.all([viewerFacts(core, account, [target.accountId]), policiesOf(core, [target])]);
  if (!canQuote(target, policies.get(target.id) ?? 'nobody', factsOf(facts, account, target.accountId))) throw missing();
  return target;
}

/** A quote of a private status is private at most (Mastodon lowers public and unlisted). */
export function quotingVisibility(quoted: Status | null, requested: Visibility): Visibility {
  if (quoted === null || quoted.visibility !== 'private') return requested;
  return requested === 'public' || requested === 'unlisted' ? 'private' : requested;
}

/** A direct status may quote only its own author's statuses or those of an account it mentions. */
export function checkDirectQuote(quoted: Status | null, account: Account, visibility: Visibility, mentionIds: readonly Id[]): void {
  if (quoted === null || visibility !== 'direct') return;
  if (quoted.accountId === account.id || mentionIds.includes(quoted.accountId)) return;
  throw unprocessable(texts.quotedNotMentioned);
}

/** The quote a new status makes (or an edited one, `at` the edit's time): accepted at once when
 * the quoted status is local (the policy was checked), pending the remote server's
 * authorization otherwise. */
export function newQuote(core: Core, statusId: Id, account: Account, quoted: Status, at?: Millis): Quote {
  const now = at ?? core.clock.now();
  return {
    id: core.ids.next(),
    statusId,
    accountId: account.id,
    quotedStatusId: quoted.id,
    quotedAccountId: quoted.accountId,
    state: quoted.local ? 'accepted' : 'pending',
    authorizationUri: null,
    requestUri: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** What `quoted_status_id` asks of an edit: nothing (absent, or the status quoted now), the
 * quote removed (empty or null), or another status quoted instead. */
export type QuoteEdit = { kind: 'keep' } | { kind: 'remove' } | { kind: 'replace'; quoted: Status };

/** Reads `quoted_status_id` on an edit (beyond Mastodon 4.5, which leaves a
 * status's quote as it was published). A new quoted status passes publish's checks, with the
 * same 404; the edited status itself cannot be quoted; a private one cannot be quoted by a
 * public or unlisted status, whose visibility an edit never changes. */
export async function readQuoteEdit(core: Core, account: Account, status: Status, params: Params): Promise<QuoteEdit> {
  const raw = params['quoted_status_id'];
  if (raw === undefined) return { kind: 'keep' };
  const current = (await core.storage.quotes.ofStatuses([status.id])).get(status.id) ?? null;
  if (raw === null || raw === '') return current === null ? { kind: 'keep' } : { kind: 'remove' };
  const id = str(params, 'quoted_status_id');
  if (id === undefined) return { kind: 'keep' };
  if (current !== null && id === current.quotedStatusId) return { kind: 'keep' };
  const quoted = await quoteTarget(core, account, params);
  if (quoted === null) return { kind: 'keep' };
  if (current !== null && quoted.id === current.quotedStatusId) return { kind: 'keep' };
  if (quoted.id === status.id) throw new RookeryError(404, texts.quotedMissing);
  if (quotingVisibility(quoted, status.visibility) !== status.visibility) throw unprocessable(texts.quotedPrivateInPublic);
  return { kind: 'replace', quoted };
}

export interface PagedQuotes {
  /** The quoting statuses, newest quote first. */
  statuses: Status[];
  /** Quote ids of the page's ends (the Link header's cursors); null when the page is empty. */
  newest: Id | null;
  oldest: Id | null;
  full: boolean;
}

/** GET /api/v1/statuses/:id/quotes: the accepted quotes of a status the viewer can see, paged
 * by quote. Its author sees every one (to revoke them); anyone else, those they may see; nobody
 * those of accounts they block or mute. */
export async function quotesOf(core: Core, viewer: Account, id: string, page: Page): Promise<PagedQuotes> {
  const { status, original } = await findVisible(core, viewer, id);
  const quoted = original ?? status;
  const quotes = await core.storage.quotes.quotesOf(quoted.id, ['accepted'], page);
  const statuses = await core.storage.statuses.getMany(quotes.map((q) => q.statusId));
  // Those by accounts the reader blocks or mutes are left out, as timelines leave them.
  const readable = await withoutHiddenAccounts(core, viewer, statuses);
  const visible = quoted.accountId === viewer.id ? readable.filter((s) => s.deletedAt === null) : await filterVisible(core, viewer, readable);
  const byId = new Map(visible.map((s) => [s.id, s]));
  return {
    statuses: quotes.flatMap((q) => byId.get(q.statusId) ?? []),
    newest: quotes[0]?.id ?? null,
    oldest: quotes[quotes.length - 1]?.id ?? null,
    full: quotes.length > 0 && quotes.length >= page.limit,
  };
}

/** POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke: the quoted author withdraws an
 * accepted (or pending) quote; answered with the quoting status. */
export async function revokeQuote(core: Core, actor: Account, quotedId: string, quotingId: string): Promise<Status> {
  const { status } = await findVisible(core, actor, quotedId);
  if (status.accountId !== actor.id) throw forbidden();
  if (!isId(quotingId)) throw notFound();
  const quote = (await core.storage.quotes.ofStatuses([quotingId])).get(quotingId);
  if (quote === undefined || quote.quotedStatusId !== status.id) throw notFound();
  const quoting = await findLive(core, quote.statusId);
  await core.storage.quotes.transition(quote.statusId, ['accepted', 'pending'], 'revoked', core.clock.now(), {
    outbox: (changed) => (changed === null ? [] : core.record({ type: 'quote.changed', quote: changed, from: quote.state })),
  });
  return quoting;
}

/** PUT /api/v1/statuses/:id/interaction_policy: the author changes who may quote a status (a
 * private or direct one stays quotable by nobody else). */
export async function setInteractionPolicy(core: Core, actor: Account, user: User | null, id: string, params: Params): Promise<Status> {
  const status = await findLive(core, id);
  if (status.accountId !== actor.id || status.reblogOfId !== null) throw notFound();
  await setQuotePolicy(core, status, readQuotePolicy(params) ?? defaultQuotePolicy(user));
  return status;
}

/** Stores a status's new policy ('status.policy_changed' tells readers and other servers).
 * Nothing happens when it does not change. */
export async function setQuotePolicy(core: Core, status: Status, requested: QuotePolicy): Promise<void> {
  const policy = storedQuotePolicy(status.visibility, requested);
  if ((await policiesOf(core, [status])).get(status.id) === policy) return;
  await core.storage.quotes.setPolicy(status.id, policy);
  await core.storage.jobs.enqueue(core.record({ type: 'status.policy_changed', status }), core.clock.now());
}

/** A quoting status deleted takes its quote with it: no longer counted or listed (the quote of a
 * deleted status stays, in state `deleted`). Runs as a job per 'status.deleted'. */
export function quoteDeletionHandler(core: Core): EventHandler {
  return async ({ event }) => {
    if (event.type !== 'status.deleted' || event.status.reblogOfId !== null) return;
    await core.storage.quotes.transition(event.status.id, ['pending', 'accepted'], 'deleted', core.clock.now());
  };
}
