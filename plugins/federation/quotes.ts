// Quote posts over ActivityPub (FEP-044f, as Mastodon 4.5 speaks it). Out: a local Note names
// the status it quotes (`quote`, and `quoteUrl`, which Fedify also writes as `_misskey_quote` and
// `quoteUri`), the authorization of an accepted quote (`quoteAuthorization`) and who may quote it
// (`interactionPolicy.canQuote`); a local quote of a remote status asks the quoted author's
// server with a QuoteRequest, whose Accept (its `result` the QuoteAuthorization stamp) or Reject
// settles it; a local author revoking a remote quote deletes the stamp. In: a QuoteRequest for a
// local status is answered by the status's policy (the core decides), an accepted one with a
// stamp this server serves at its id; a remote Note's quote is resolved and recorded, its
// authorization verified (the stamp fetched from the quoted author's server must name this very
// quote); a Delete of a stamp revokes the quote. The decisions are the core's (federation/quotes.ts).

import { accountUri, type Account, type Id, type PluginHost, type Status } from 'rookery/plugin-kit';
import type { Context, RequestContext } from '@fedify/fedify';
import { Accept, Delete, QuoteAuthorization, QuoteRequest, Reject, type Recipient } from '@fedify/fedify/vocab';
import { localAccount, recipientOf, type FederationParts } from './federation.ts';
import { quoteOf, REQUEST_SUFFIX, requestUriOf, stampUriOf, uriOf } from './quote-objects.ts';

export interface QuoteFederation {
  /** An incoming QuoteRequest, from `sender`, for the status the core found quoted. */
  requested(ctx: Context<PluginHost>, request: QuoteRequest, sender: Account, quotingStatusId: Id | null, quotedStatusId: Id): Promise<void>;
  /** The local quote an Accept or Reject answers (null: not one of ours). */
  answered(answer: Accept | Reject, sender: Account): Promise<boolean>;
  /** A Delete whose object may be a stamp of a quote of ours. */
  deleted(objectId: URL, sender: Account): Promise<boolean>;
}

export function quoteFederation(
  host: PluginHost,
  parts: FederationParts,
  isBlocked: (domain: string) => Promise<boolean>,
  mayFetch: (ctx: RequestContext<PluginHost>) => Promise<boolean>,
): QuoteFederation {
  const api = host.system.federation;

  async function deliver(ctx: Context<PluginHost>, sender: Account, to: Account, activity: Accept | Reject | Delete | QuoteRequest): Promise<void> {
    if (to.domain === null || (await isBlocked(to.domain))) return;
    const recipient: Recipient | null = await recipientOf(parts, ctx, to);
    if (recipient !== null) await ctx.sendActivity({ identifier: sender.username }, recipient, activity);
  }

  // The stamp of an accepted quote of a local status, served at its id (which names the quoting
  // status: the quote is found without storing the stamp).
  parts.federation.setObjectDispatcher(QuoteAuthorization, '/users/{identifier}/quote_authorizations/{id}', async (ctx, values) => {
    const author = await localAccount(host, values.identifier);
    if (author === null || !/^\d{1,20}$/.test(values.id)) return null;
    const quote = await quoteOf(host, values.id);
    if (quote === null || quote.state !== 'accepted' || quote.quotedAccountId !== author.id) return null;
    const [quoting, quoted] = await Promise.all([uriOf(host, quote.statusId), uriOf(host, quote.quotedStatusId)]);
    if (quoting === null || quoted === null) return null;
    return new QuoteAuthorization({
      id: ctx.getObjectUri(QuoteAuthorization, values),
      attribution: ctx.getActorUri(author.username),
      interactingObject: new URL(quoting.uri),
      interactionTarget: new URL(quoted.uri),
    });
  }).authorize((ctx) => mayFetch(ctx));

  // A local quote of a remote status asks the quoted author's server: when the status is
  // published, and when an edit quotes another status (its quote made at the edit's time).
  async function askForQuote(status: Status, madeAt: number | null): Promise<void> {
    if (!status.local || status.reblogOfId !== null) return;
    const quote = await quoteOf(host, status.id);
    if (quote === null || quote.state !== 'pending') return;
    if (madeAt !== null && quote.createdAt !== madeAt) return;
    const [quoting, quoted] = await Promise.all([uriOf(host, status.id), uriOf(host, quote.quotedStatusId)]);
    if (quoting === null || quoted === null || quoted.status.local) return;
    const ctx = parts.context();
    const request = new QuoteRequest({
      id: new URL(requestUriOf(quoting.uri)),
      actor: ctx.getActorUri(quoting.author.username),
      object: new URL(quoted.uri),
      instrument: new URL(quoting.uri),
    });
    await deliver(ctx, quoting.author, quoted.author, request);
  }
  // Only a status published here quoting another asks: the rest of the statuses set off no job.
  host.on('status.created', (event) => askForQuote(event.status, null), { when: (event) => event.quotedStatusId !== null && event.status.local });
  host.on('status.updated', (event) => askForQuote(event.status, event.status.editedAt));

  // A local author withdrew a remote account's quote: the stamp is deleted, for its server.
  host.on('quote.changed', async (event) => {
    const quote = event.quote;
    if (quote.state !== 'revoked' || event.from !== 'accepted') return;
    const [quoting, quoted] = await Promise.all([uriOf(host, quote.statusId), uriOf(host, quote.quotedStatusId)]);
    if (quoting === null || quoted === null || quoting.status.local || !quoted.status.local) return;
    const ctx = parts.context();
    const stamp = stampUriOf(host, quoted.author, quote);
    await deliver(ctx, quoted.author, quoting.author, new Delete({ id: new URL(`${stamp}#delete`), actor: ctx.getActorUri(quoted.author.username), object: new URL(stamp) }));
  });

  return {
    async requested(ctx, request, sender, quotingStatusId, quotedStatusId) {
      const quoted = await uriOf(host, quotedStatusId);
      if (quoted === null || !quoted.status.local || request.id === null) return;
      const quote = quotingStatusId === null ? null : await api.answerQuoteRequest(quotingStatusId, quotedStatusId, request.id.href);
      const actor = ctx.getActorUri(quoted.author.username);
      const answered = new QuoteRequest({ id: request.id, actor: new URL(accountUri(host.config, sender)), object: new URL(quoted.uri), ...(request.instrumentId ? { instrument: request.instrumentId } : {}) });
      if (quote !== null && quote.state === 'accepted' && quote.accountId === sender.id) {
        const stamp = stampUriOf(host, quoted.author, quote);
        await deliver(ctx, quoted.author, sender, new Accept({ id: new URL(`${actor.href}#accepts/quotes/${quote.id}`), actor, object: answered, result: new URL(stamp) }));
      } else {
        await deliver(ctx, quoted.author, sender, new Reject({ id: new URL(`${actor.href}#rejects/quotes/${host.newId()}`), actor, object: answered }));
      }
    },

    async answered(answer, sender) {
      const objectId = answer.objectId;
      if (objectId === null || !objectId.href.endsWith(REQUEST_SUFFIX)) return false;
      const quotingUri = objectId.href.slice(0, -REQUEST_SUFFIX.length);
      const base = `${host.config.baseUrl}/users/`;
      const statusId = quotingUri.startsWith(base) ? (/\/statuses\/(\d+)$/.exec(new URL(quotingUri).pathname)?.[1] ?? null) : null;
      if (statusId === null) return true;
      const quote = await quoteOf(host, statusId);
      // Only the quoted author answers for its status.
      if (quote === null || quote.quotedAccountId !== sender.id) return true;
      if (answer instanceof Reject) {
        await api.quoteRefused(statusId);
        return true;
      }
      const stamp = answer.resultId;
      if (stamp === null || sender.uri === null || stamp.origin !== new URL(sender.uri).origin) return true;
      await api.quoteAuthorized(statusId, stamp.href);
      return true;
    },

    async deleted(objectId, sender) {
      const revoked = await api.quoteRevoked(objectId.href, sender.id);
      return revoked !== null;
    },
  };
}
