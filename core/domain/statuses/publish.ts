// Operation 1: publish a status. Order as Mastodon's: the reply target, then the
// Idempotency-Key (a repeat returns the first status whatever the new body says), then the
// plugin-handled parameters, then validation, then one atomic write that also records the
// 'status.created' event; notifications and streams follow off the request path.

import type { Core } from '../context.ts';
import { notFound, RookeryError, texts, unprocessable } from '../errors.ts';
import { normalizeLanguage } from '../languages.ts';
import { VISIBILITIES, type Account, type Id, type Status, type User, type Visibility } from '../model.ts';
import { str, strArray, type Params } from '../params.ts';
import type { PublishDraft } from '../hooks.ts';
import { countsAsReply, countsForAuthor, visibilityFor } from '../policy.ts';
import { StorageConflict, type StorageWrite } from '../ports/storage.ts';
import { findVisible } from '../viewer.ts';
import { checkRawLength, readText, refuseUnhandledParams, renderText, runPublishHooks, validateText } from './compose.ts';
import { newStatus } from './new-status.ts';
import { checkDirectQuote, defaultQuotePolicy, newQuote, policyToStore, quoteTarget, quotingVisibility, readQuotePolicy } from './quote.ts';

export interface Author {
  account: Account;
  user: User | null;
  applicationId: Id | null;
}

export type PublishResult = { kind: 'status'; status: Status } | { kind: 'diverted'; body: unknown };

const PLUGIN_PARAMS = ['media_ids', 'poll', 'scheduled_at'] as const;

export function readVisibility(params: Params, fallback: Visibility): Visibility {
  const value = str(params, 'visibility');
  if (value === undefined || value === '') return fallback;
  if (!(VISIBILITIES as readonly string[]).includes(value)) throw unprocessable(texts.visibilityInvalid);
  return value as Visibility;
}

export function readLanguage(params: Params, user: User | null): string | null {
  return normalizeLanguage(str(params, 'language')) ?? user?.settings.defaultLanguage ?? normalizeLanguage(user?.locale) ?? null;
}

/** The status being replied to (a boost stands for its original); it must be visible. */
async function replyTarget(core: Core, account: Account, params: Params): Promise<Status | null> {
  const id = str(params, 'in_reply_to_id');
  if (id === undefined || id === '') return null;
  try {
    const found = await findVisible(core, account, id);
    return found.original ?? found.status;
  } catch {
    throw new RookeryError(404, texts.replyMissing);
  }
}

/** A plugin's check refused the write: the 422 Mastodon gives for it. */
export function conflictError(err: unknown, draft: PublishDraft): unknown {
  if (err instanceof StorageConflict && err.rule === 'media') {
    return unprocessable(`Media ${draft.mediaIds.join(', ')} not found or already attached to another post`);
  }
  return err;
}

/** A publish whose mentions reach accounts the client did not list in `allowed_mentions`
 * (Mastodon's guard against a post going to someone by accident): nothing is written. */
export class UnexpectedMentionsError extends RookeryError {
  readonly accountIds: readonly Id[];
  constructor(accountIds: readonly Id[]) {
    super(422, 'Post would be sent to unexpected accounts');
    this.accountIds = accountIds;
  }
}

function refuseUnexpectedMentions(params: Params, mentionIds: readonly Id[]): void {
  const allowed = strArray(params, 'allowed_mentions');
  if (allowed === undefined) return;
  const expected = new Set(allowed);
  const unexpected = mentionIds.filter((id) => !expected.has(id));
  if (unexpected.length > 0) throw new UnexpectedMentionsError(unexpected);
}

export interface PublishOptions {
  /** More writes to commit with the status (a scheduled status's row, removed as it is published). */
  writes?: readonly StorageWrite[];
}

export async function publish(core: Core, author: Author, params: Params, idempotencyKey: string | null, publishOptions: PublishOptions = {}): Promise<PublishResult> {
  const { account, user } = author;
  // A deleted account writes nothing more (a status it scheduled before is dropped).
  if (account.deletedAt !== null) throw notFound();
  const inReplyTo = await replyTarget(core, account, params);
  const quoted = await quoteTarget(core, account, params);
  const notBefore = core.clock.now() - core.config.limits.idempotencySeconds * 1000;
  if (idempotencyKey !== null) {
    const earlier = await core.storage.statuses.findIdempotent(account.id, idempotencyKey, notBefore);
    if (earlier !== null) {
      if (earlier.status === null) throw notFound();
      return { kind: 'status', status: earlier.status };
    }
  }
  refuseUnhandledParams(core, params, PLUGIN_PARAMS);

  const settings = user?.settings;
  const visibility = quotingVisibility(quoted, visibilityFor(account, readVisibility(params, settings?.defaultVisibility ?? 'public')));
  const quotePolicy = policyToStore(visibility, readQuotePolicy(params) ?? defaultQuotePolicy(user));
  const parts = readText(params, settings?.defaultSensitive ?? false);
  checkRawLength(core, parts);
  const draft: PublishDraft = {
    account,
    params,
    ...parts,
    visibility,
    language: readLanguage(params, user),
    inReplyTo,
    applicationId: author.applicationId,
    idempotencyKey,
    statusId: core.ids.next(),
    mediaIds: [],
    pollId: null,
    pollOptions: null,
    previousPollOptions: null,
    writes: [],
    editing: false,
    current: null,
  };
  const diverted = await runPublishHooks(core, draft, PLUGIN_PARAMS);
  if (diverted) return { kind: 'diverted', body: diverted.divert };
  validateText(core, draft, draft.mediaIds.length > 0);

  const rendered = await renderText(core, draft.text);
  refuseUnexpectedMentions(params, rendered.mentionIds);
  checkDirectQuote(quoted, account, draft.visibility, rendered.mentionIds);
  const id = draft.statusId;
  const status = newStatus(core, account, {
    id: draft.statusId,
    text: draft.text,
    content: rendered.content,
    spoilerText: draft.spoilerText,
    sensitive: draft.sensitive,
    visibility: draft.visibility,
    language: draft.language,
    inReplyToId: inReplyTo?.id ?? null,
    inReplyToAccountId: inReplyTo?.accountId ?? null,
    conversationId: inReplyTo?.conversationId ?? id,
    applicationId: draft.applicationId,
    mentionIds: rendered.mentionIds,
    tags: rendered.tags,
    mediaIds: draft.mediaIds,
    pollId: draft.pollId,
  });
  const options: Parameters<Core['storage']['statuses']['create']>[2] = {};
  if (idempotencyKey !== null) options.idempotency = { key: idempotencyKey, notBefore };
  const writes = [...draft.writes, ...(publishOptions.writes ?? [])];
  // The quote and a policy other than the default commit with the status.
  if (quoted !== null || quotePolicy !== null) {
    writes.push(
      core.storage.quotes.attach({
        ...(quoted === null ? {} : { quote: newQuote(core, id, account, quoted) }),
        ...(quotePolicy === null ? {} : { policy: { statusId: id, policy: quotePolicy } }),
      }),
    );
  }
  if (writes.length > 0) options.writes = writes;
  options.outbox = (outcome) => (outcome.created ? core.record({ type: 'status.created', status: outcome.status, quotedStatusId: quoted?.id ?? null }) : []);
  let result;
  try {
    result = await core.storage.statuses.create(
      status,
      { countForAuthor: countsForAuthor(status), countReplyOf: countsAsReply(status) ? status.inReplyToId : null },
      options,
    );
  } catch (err) {
    throw conflictError(err, draft);
  }
  if (!result.created) {
    if (result.existing === null) throw notFound();
    return { kind: 'status', status: result.existing };
  }
  return { kind: 'status', status: result.status };
}
