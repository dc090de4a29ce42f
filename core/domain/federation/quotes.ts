// Quotes over federation (FEP-044f), the domain's side: what another server states about a
// quote (a Note quoting a status, a QuoteRequest, an authorization given or withdrawn) stored
// under the rules a local quote follows. The plugin speaks ActivityPub and verifies signatures
// and stamps; the decisions (who may quote what, which state a quote moves to) are taken here.

import type { Core } from '../context.ts';
import { QUOTE_POLICIES, type Account, type Id, type Millis, type Quote, type QuotePolicy, type QuoteState, type Status } from '../model.ts';
import { isId } from '../ids.ts';
import { httpUrl } from '../remote/lookup.ts';
import { canQuote } from '../policy.ts';
import type { StorageWrite } from '../ports/storage.ts';
import { effectivePolicy } from '../statuses/quote.ts';
import { factsOf, viewerFacts } from '../viewer.ts';

/** What a remote status states about quoting. */
export interface RemoteQuoteInput {
  /** The status it quotes, stored beforehand (the plugin fetched it); null: none, or unknown. */
  quotedStatusId: Id | null;
  /** The authorization it carries, already verified by the plugin to be the quoted author's
   * stamp for this very quote (null: none, or it did not verify). */
  authorizationUri: string | null;
}

/** A stated policy, when it is one of the three. */
function validPolicy(policy: unknown): QuotePolicy | null {
  return typeof policy === 'string' && (QUOTE_POLICIES as readonly string[]).includes(policy) ? (policy as QuotePolicy) : null;
}

/** Whether the quoted author's side allows `author` to quote `quoted` (its stored policy). */
async function allowed(core: Core, quoted: Status, author: Account): Promise<boolean> {
  const stored = (await core.storage.quotes.policies([quoted.id])).get(quoted.id);
  const facts = await viewerFacts(core, author, [quoted.accountId]);
  return canQuote(quoted, effectivePolicy(quoted, stored), factsOf(facts, author, quoted.accountId));
}

/** The state a remote status's quote starts in: for a local quoted status, what its policy says
 * (the QuoteRequest that follows is answered by the same rule); for a remote one, accepted only
 * with a verified authorization, pending otherwise. */
async function initialState(core: Core, quoted: Status, author: Account, input: RemoteQuoteInput): Promise<QuoteState> {
  if (quoted.local) return (await allowed(core, quoted, author)) ? 'accepted' : 'rejected';
  return httpUrl(input.authorizationUri) !== null ? 'accepted' : 'pending';
}

/** The writes that store a new remote status's quote and policy with it (`at`: when the quote
 * was made, now unless an edit made it). */
export async function remoteQuoteWrites(
  core: Core,
  statusId: Id,
  author: Account,
  quote: RemoteQuoteInput | null | undefined,
  stated: QuotePolicy | null | undefined,
  at?: Millis,
): Promise<StorageWrite[]> {
  let record: Quote | undefined;
  const policy = validPolicy(stated);
  if (quote && typeof quote.quotedStatusId === 'string' && isId(quote.quotedStatusId)) {
    const quoted = await core.storage.statuses.get(quote.quotedStatusId);
    if (quoted !== null && quoted.reblogOfId === null) {
      const now = at ?? core.clock.now();
      record = {
        id: core.ids.next(),
        statusId,
        accountId: author.id,
        quotedStatusId: quoted.id,
        quotedAccountId: quoted.accountId,
        state: await initialState(core, quoted, author, quote),
        authorizationUri: quoted.local ? null : httpUrl(quote.authorizationUri),
        requestUri: null,
        createdAt: now,
        updatedAt: now,
      };
    }
  }
  const values: Parameters<Core['storage']['quotes']['attach']>[0] = {};
  if (record !== undefined) values.quote = record;
  if (policy) values.policy = { statusId, policy };
  return record === undefined && !policy ? [] : [core.storage.quotes.attach(values)];
}

/** What an edit from another server does to its status's quote: the writes that replace it
 * (another status quoted, stored under the rules a new quote follows) or remove it (the copy
 * quotes nothing); none when the copy states nothing, the same status, or a status this server
 * could not resolve (quotedStatusId null: the quote is left as it was). */
export async function remoteQuoteChange(core: Core, status: Status, author: Account, quote: RemoteQuoteInput | null | undefined, at: Millis): Promise<StorageWrite[]> {
  if (quote === undefined) return [];
  const current = (await core.storage.quotes.ofStatuses([status.id])).get(status.id) ?? null;
  if (quote === null) return current === null ? [] : [core.storage.quotes.attach({ removeQuoteOf: status.id })];
  if (quote.quotedStatusId === null || quote.quotedStatusId === current?.quotedStatusId) return [];
  return remoteQuoteWrites(core, status.id, author, quote, null, at);
}

/** A later copy of a remote status (an Update): a policy it now states is stored, and a quote
 * still pending is accepted once the copy carries a verified authorization. */
export async function refreshRemoteQuote(core: Core, status: Status, quote: RemoteQuoteInput | null | undefined, stated: QuotePolicy | null | undefined): Promise<void> {
  const policy = validPolicy(stated);
  if (policy) {
    const stored = (await core.storage.quotes.policies([status.id])).get(status.id);
    if (stored !== policy) await core.storage.quotes.setPolicy(status.id, policy);
  }
  const authorization = quote ? httpUrl(quote.authorizationUri) : null;
  if (authorization !== null) await authorize(core, status.id, authorization);
}

function changed(core: Core, from: QuoteState) {
  return (quote: Quote | null) => (quote === null ? [] : core.record({ type: 'quote.changed', quote, from }));
}

/** A pending quote accepted by the quoted author's server (its Accept, or an authorization
 * seen on the quoting status). Null when there was no pending quote. */
export async function authorize(core: Core, quotingStatusId: Id, authorizationUri: string): Promise<Quote | null> {
  return core.storage.quotes.transition(quotingStatusId, ['pending'], 'accepted', core.clock.now(), { authorizationUri, outbox: changed(core, 'pending') });
}

/** A pending quote refused by the quoted author's server. */
export async function refuse(core: Core, quotingStatusId: Id): Promise<Quote | null> {
  return core.storage.quotes.transition(quotingStatusId, ['pending'], 'rejected', core.clock.now(), { outbox: changed(core, 'pending') });
}

/** The quoted author's server withdrew an authorization it gave (a Delete of the stamp): only
 * the quoted author (`senderId`) may. */
export async function revokeRemotely(core: Core, authorizationUri: string, senderId: Id): Promise<Quote | null> {
  const quote = await core.storage.quotes.findByUri(authorizationUri);
  if (quote === null || quote.authorizationUri !== authorizationUri || quote.quotedAccountId !== senderId) return null;
  return core.storage.quotes.transition(quote.statusId, ['accepted', 'pending'], 'revoked', core.clock.now(), { outbox: changed(core, quote.state) });
}

/** Answers a QuoteRequest for a local status: the quote of the remote status (stored
 * beforehand) decided by the quoted status's policy, as a local quote is. Returns the quote in
 * its state (accepted or rejected), or null when the remote status does not quote that local
 * status. */
export async function answerQuoteRequest(core: Core, quotingStatusId: Id, quotedStatusId: Id, requestUri: string): Promise<Quote | null> {
  const quote = (await core.storage.quotes.ofStatuses([quotingStatusId])).get(quotingStatusId);
  if (quote === undefined || quote.quotedStatusId !== quotedStatusId) return null;
  const [quoted, author] = await Promise.all([core.storage.statuses.get(quotedStatusId), core.storage.accounts.get(quote.accountId)]);
  if (quoted === null || !quoted.local || author === null) return null;
  if (quote.requestUri !== requestUri) await core.storage.quotes.save({ ...quote, requestUri, updatedAt: core.clock.now() });
  if (quote.state === 'accepted' || quote.state === 'rejected' || quote.state === 'revoked') return { ...quote, requestUri };
  const ok = await allowed(core, quoted, author);
  const moved = await core.storage.quotes.transition(quote.statusId, [quote.state], ok ? 'accepted' : 'rejected', core.clock.now(), { outbox: changed(core, quote.state) });
  return moved;
}
