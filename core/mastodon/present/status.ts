// Status → Mastodon JSON for one viewer. Pure: everything it needs is loaded
// beforehand into a StatusBundle (present/load.ts does that in a few batched reads).

import { isSensitized } from '../../domain/policy.ts';
import type { RookeryConfig } from '../../domain/config.ts';
import type { BoundStatusDecorator, DecorateContext } from '../context.ts';
import type { Account, Application, Filter, Id, Millis, Status } from '../../domain/model.ts';
import type { ViewerState } from '../../domain/ports/storage.ts';
import { acct, accountUrl, statusUri, statusUrl, tagUrl } from '../../domain/urls.ts';
import { renderAccount, type LoadedAccountDecorator } from './account.ts';
import type { KeywordMatcher } from '../../domain/text/keywords.ts';
import { matchFilters } from '../entities/filter.ts';
import type { StatusJson } from '../entities/status-json.ts';
import { iso, isoOrNull } from '../entities/time.ts';
import { decorateQuote, NO_QUOTES, type QuoteBundle } from './quote.ts';

export interface ViewerBundle {
  state: ViewerState;
  filters: Filter[];
  /** The filters' keywords, compiled (present/filter.ts keywordMatcher). */
  keywords: KeywordMatcher;
}

/** A plugin's decorator with what it loaded for this render. */
export interface LoadedDecorator {
  decorator: BoundStatusDecorator;
  loaded: unknown;
}

export interface StatusBundle {
  accounts: Map<Id, Account>;
  /** Originals of the boosts being rendered. */
  statuses: Map<Id, Status>;
  applications: Map<Id, Application>;
  /** The plugins' parts (media, poll, card), each with its batched read. */
  decorators: LoadedDecorator[];
  /** The plugins' parts of the authors (emojis), each with its batched read; none when absent. */
  accountDecorators?: readonly LoadedAccountDecorator[];
  /** null for an anonymous viewer: no per-user flags at all. */
  viewer: ViewerBundle | null;
  now: Millis;
  /** The quotes of the statuses and what the reader may see of them (present/quote.ts). */
  quotes?: QuoteBundle;
  /** When the answer is kept ready: where renderers note when it reads differently by time. */
  keep?: { until: Millis };
}

/** What the plugins' renderers are given for this bundle. */
export function decorateContext(bundle: StatusBundle): DecorateContext {
  const signedIn = bundle.viewer !== null;
  const note = bundle.keep;
  if (note === undefined) return { now: bundle.now, signedIn };
  return {
    now: bundle.now,
    signedIn,
    changesAt(at) {
      if (at < note.until) note.until = at;
    },
  };
}

export interface RenderOptions {
  /** The delete response: `text` (the source) instead of `content`, for redrafting. */
  source?: boolean;
  /** Streams: leave `filtered` out; each subscriber's own filters add it at delivery. */
  omitFiltered?: boolean;
  /** The status is shown as another's quote: its own quote is shallow. */
  nestedQuote?: boolean;
}

export type { StatusJson } from '../entities/status-json.ts';

/** Returns null when the status cannot be rendered (its author or boosted original is gone). */
export function renderStatus(config: RookeryConfig, status: Status, bundle: StatusBundle, options: RenderOptions = {}): StatusJson | null {
  const author = bundle.accounts.get(status.accountId);
  if (!author) return null;
  let reblog: StatusJson | null = null;
  if (status.reblogOfId !== null) {
    const original = bundle.statuses.get(status.reblogOfId);
    reblog = original ? renderStatus(config, original, bundle, options.omitFiltered ? { omitFiltered: true } : {}) : null;
    if (reblog === null) return null;
  }
  const isBoost = reblog !== null;
  const viewer = bundle.viewer;
  // What the members besides `account` read of the author is all in cache/status-text.ts's
  // AuthorFacts, which decides when a kept status is rendered again: keep the two in step.
  const json: StatusJson = {
    id: status.id,
    created_at: iso(status.createdAt),
    in_reply_to_id: status.inReplyToId,
    in_reply_to_account_id: status.inReplyToAccountId,
    // A sensitized author's media are always shown as sensitive.
    sensitive: status.sensitive || isSensitized(author),
    spoiler_text: status.spoilerText,
    visibility: status.visibility,
    language: isBoost ? null : status.language,
    uri: statusUri(config, status, author),
    url: statusUrl(config, status, author),
    replies_count: status.repliesCount,
    reblogs_count: status.reblogsCount,
    favourites_count: status.favouritesCount,
    edited_at: isoOrNull(status.editedAt),
    reblog: null,
    application: null,
    account: renderAccount(config, author, bundle.accountDecorators),
    media_attachments: [],
    mentions: [],
    tags: [],
    emojis: [],
    card: null,
    poll: null,
  };
  if (viewer !== null) {
    // A boost reports the viewer's interactions with the original, as Mastodon does when it
    // renders one status (masto.js reads `reblogged` off the boost its reblog call returns).
    // Its conversation is the original's, so `muted` follows it too. A boost is never
    // pinnable: Mastodon leaves `pinned` out.
    const proper = status.reblogOfId ?? status.id;
    json.favourited = viewer.state.favourited.has(proper);
    json.reblogged = viewer.state.reblogged.has(proper);
    json.muted = viewer.state.mutedConversations.has(status.conversationId);
    json.bookmarked = viewer.state.bookmarked.has(proper);
    if (!isBoost) json.pinned = viewer.state.pinned.has(status.id);
    if (!options.omitFiltered) json.filtered = isBoost ? [] : matchFilters(viewer.filters, viewer.keywords, status, searchableText(status, bundle), bundle.now);
  }
  // A boost carries no text of its own: clients read everything from `reblog`.
  const body = isBoost ? '' : options.source ? status.text : status.content;
  if (options.source) json.text = body;
  else json.content = body;
  json.reblog = reblog;
  const app = status.applicationId === null ? undefined : bundle.applications.get(status.applicationId);
  json.application = app ? { name: app.name, website: app.website } : null;
  json.mentions = status.mentionIds.flatMap((id) => {
    const account = bundle.accounts.get(id);
    return account ? [{ id: account.id, username: account.username, url: accountUrl(config, account), acct: acct(account) }] : [];
  });
  json.tags = status.tags.map((name) => ({ name, url: tagUrl(config, name) }));
  // The plugins' parts; a boost has none of its own (clients read them from `reblog`).
  if (!isBoost) {
    const context = decorateContext(bundle);
    for (const { decorator, loaded } of bundle.decorators) decorator.render(status, loaded, json, context);
  }
  decorateQuote(status, bundle.quotes ?? NO_QUOTES, json, options.nestedQuote === true, (quoted) =>
    renderStatus(config, quoted, bundle, { ...(options.omitFiltered ? { omitFiltered: true } : {}), nestedQuote: true }),
  );
  return json;
}

/** What keyword filters look at: the text, the content warning, and what the plugins add
 * (alt texts, poll options). */
export function searchableText(status: Status, bundle: Pick<StatusBundle, 'decorators'>): string {
  const parts = [status.spoilerText, status.text];
  for (const { decorator, loaded } of bundle.decorators) if (decorator.searchable) parts.push(...decorator.searchable(status, loaded));
  return parts.join('\n');
}
