// Remote statuses: stored once per ActivityPub id, with their HTML kept to the allow-list and
// every value bounded, through the same storage calls and events as local ones, so that home
// timelines, streams, hashtags and notifications treat them alike. Only their author may edit
// or delete them.

import type { Core } from '../context.ts';
import { forbidden, unprocessable } from '../errors.ts';
import { normalizeLanguage } from '../languages.ts';
import { VISIBILITIES, type Account, type Id, type Millis, type QuotePolicy, type Status, type StatusEdit, type Visibility } from '../model.ts';
import { countsAsReply, countsForAuthor } from '../policy.ts';
import type { Outbox } from '../ports/queue.ts';
import { StorageConflict, type StorageWrite } from '../ports/storage.ts';
import { counterEffects } from '../statuses/delete.ts';
import { revisionOf, type Revised } from '../statuses/edit.ts';
import { newStatus } from '../statuses/new-status.ts';
import { boundText, htmlToText, sanitizeHtml } from '../text/sanitize.ts';
import { normalizeTag } from '../text/tags.ts';
import { findStatusByUri, httpUrl } from '../remote/lookup.ts';
import { refreshRemoteQuote, remoteQuoteChange, remoteQuoteWrites, type RemoteQuoteInput } from './quotes.ts';

export interface RemoteStatusInput {
  uri: string;
  url: string | null;
  /** The (remote) account that wrote it, stored beforehand (upsertRemoteAccount). */
  authorId: Id;
  contentHtml: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToUri: string | null;
  /** Accounts it mentions (already stored); unknown ids are dropped. */
  mentionIds: Id[];
  /** Hashtag names, with or without '#'. */
  tags: string[];
  createdAt: Millis;
  editedAt: Millis | null;
  /** A plugin's part of the status (the polls plugin's poll of a Question): given the status's
   * id and the poll it has, the poll id to set and the writes that commit with the status. */
  attach?: (statusId: Id, currentPollId: Id | null) => Promise<Attached>;
  /** The status it quotes (FEP-044f), and the authorization it carries (quotes.ts). */
  quote?: RemoteQuoteInput | null;
  /** Who may quote it, as its interactionPolicy states (absent: not stated). */
  quotePolicy?: QuotePolicy | null;
}

export interface Attached {
  pollId: Id | null;
  writes: StorageWrite[];
  /** Only a poll's counts changed: stored silently, as Mastodon does (no edit, no event). */
  countsOnly?: boolean;
}

export const REMOTE_STATUS_LIMITS = {
  /** HTML read of a status. */
  contentHtml: 100_000,
  spoilerText: 1_000,
  mentions: 50,
  tags: 50,
  tag: 100,
} as const;

interface ReadStatus {
  uri: string;
  url: string | null;
  content: string;
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  mentionIds: Id[];
  tags: string[];
}

async function readInput(core: Core, input: RemoteStatusInput): Promise<ReadStatus> {
  const uri = httpUrl(input.uri);
  if (uri === null) throw unprocessable('Validation failed: Uri is invalid');
  if (!(VISIBILITIES as readonly string[]).includes(input.visibility)) throw unprocessable('Validation failed: Visibility is invalid');
  const content = sanitizeHtml(typeof input.contentHtml === 'string' ? input.contentHtml : '', REMOTE_STATUS_LIMITS.contentHtml);
  const wanted = [...new Set(Array.isArray(input.mentionIds) ? input.mentionIds.filter((id) => typeof id === 'string') : [])].slice(0, REMOTE_STATUS_LIMITS.mentions);
  const known = new Set((await core.storage.accounts.getMany(wanted)).map((a) => a.id));
  const tags: string[] = [];
  for (const raw of (Array.isArray(input.tags) ? input.tags : []).slice(0, REMOTE_STATUS_LIMITS.tags * 2)) {
    if (typeof raw !== 'string') continue;
    const name = normalizeTag(raw.replace(/^#/, '').slice(0, REMOTE_STATUS_LIMITS.tag));
    if (name !== '' && !tags.includes(name) && tags.length < REMOTE_STATUS_LIMITS.tags) tags.push(name);
  }
  return {
    uri,
    url: httpUrl(input.url),
    content,
    text: htmlToText(content),
    spoilerText: boundText(typeof input.spoilerText === 'string' ? input.spoilerText : '', REMOTE_STATUS_LIMITS.spoilerText),
    sensitive: input.sensitive === true,
    visibility: input.visibility,
    language: normalizeLanguage(typeof input.language === 'string' ? input.language : undefined),
    mentionIds: wanted.filter((id) => known.has(id)),
    tags,
  };
}

/** A time from another server, kept within sense: not in the future, not before 1970. */
function remoteTime(core: Core, value: unknown): Millis {
  const now = core.clock.now();
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= now ? value : now;
}

async function remoteAuthor(core: Core, authorId: Id): Promise<Account> {
  const author = await core.storage.accounts.get(authorId);
  if (author === null || author.domain === null) throw unprocessable('Validation failed: Account must be a remote account');
  return author;
}

/** Stores a status from another server, once per uri: a second delivery returns the stored
 * one. Returns null, storing nothing, when the author's domain is blocked by the instance or
 * when the uri belonged to a status since deleted. The reply it answers is looked up by uri
 * (ours or a stored remote one); an unknown one leaves the status without it. */
export async function receiveRemoteStatus(core: Core, input: RemoteStatusInput): Promise<Status | null> {
  const author = await remoteAuthor(core, input.authorId);
  if (await core.hooks.domainBlocked(author.domain as string)) return null;
  const read = await readInput(core, input);
  const existing = await core.storage.statuses.findByUri(read.uri);
  if (existing !== null) return existing.accountId === author.id ? completeRemoteStatus(core, existing, read, input) : null;
  const parent = typeof input.inReplyToUri === 'string' ? await findStatusByUri(core, input.inReplyToUri) : null;
  const id = core.ids.next();
  const attached = typeof input.attach === 'function' ? await input.attach(id, null) : { pollId: null, writes: [] };
  const quoteWrites = await remoteQuoteWrites(core, id, author, input.quote, input.quotePolicy);
  const status = newStatus(core, author, {
    id,
    uri: read.uri,
    url: read.url,
    text: read.text,
    content: read.content,
    spoilerText: read.spoilerText,
    sensitive: read.sensitive,
    visibility: read.visibility,
    language: read.language,
    inReplyToId: parent?.id ?? null,
    inReplyToAccountId: parent?.accountId ?? null,
    conversationId: parent?.conversationId ?? id,
    applicationId: null,
    mentionIds: read.mentionIds,
    tags: read.tags,
    pollId: attached.pollId,
    createdAt: remoteTime(core, input.createdAt),
    editedAt: input.editedAt === null || input.editedAt === undefined ? null : remoteTime(core, input.editedAt),
  });
  try {
    const result = await core.storage.statuses.create(
      status,
      { countForAuthor: countsForAuthor(status), countReplyOf: countsAsReply(status) ? status.inReplyToId : null },
      { writes: [...attached.writes, ...quoteWrites], outbox: (outcome) => (outcome.created ? core.record({ type: 'status.created', status: outcome.status }) : []) },
    );
    return result.created ? result.status : result.existing;
  } catch (err) {
    if (!(err instanceof StorageConflict) || err.rule !== 'uri') throw err;
    // Stored by a concurrent delivery (that one is returned) or deleted before (null).
    const raced = await core.storage.statuses.findByUri(read.uri);
    return raced !== null && raced.accountId === author.id ? raced : null;
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

/** What readers see of a status besides its text: who it mentions and its hashtags. */
function sameReferences(status: Status, read: ReadStatus): boolean {
  return sameSet(status.mentionIds, read.mentionIds) && sameSet(status.tags, read.tags);
}

/** The mentions, hashtags and poll of a stored copy set to what a later copy of the same text
 * states, without an edit: a copy first learned through a lookup, say, that lacked them. The
 * new mentions are notified (once each: see notifications) and the hashtags indexed by the
 * write; 'status.refreshed' tells the streams. */
function refreshReferences(core: Core, status: Status, read: ReadStatus, attached: Attached, silent: boolean): Promise<Status | null> {
  const outbox: Outbox<Status | null> | undefined = silent ? undefined : (s) => (s === null ? [] : core.record({ type: 'status.refreshed', status: s }));
  return core.storage.statuses.update(
    status.id,
    {
      text: status.text,
      content: status.content,
      spoilerText: status.spoilerText,
      sensitive: status.sensitive,
      language: status.language,
      mentionIds: read.mentionIds,
      tags: read.tags,
      mediaIds: status.mediaIds,
      pollId: attached.pollId,
      editedAt: status.editedAt,
    },
    [],
    outbox === undefined ? { writes: attached.writes } : { writes: attached.writes, outbox },
  );
}

/** A status delivered again (its Create after a lookup stored it): what the stored copy lacks
 * or got wrong of the same version (the same text) is filled in. Another text, or a copy older
 * than the stored one (its Create arriving after an Update), changes nothing: an edit comes as
 * an Update. */
async function completeRemoteStatus(core: Core, status: Status, read: ReadStatus, input: RemoteStatusInput): Promise<Status> {
  const editedAt = typeof input.editedAt === 'number' ? input.editedAt : null;
  if (status.editedAt !== null && (editedAt === null || editedAt < status.editedAt)) return status;
  if (read.content !== status.content || read.spoilerText !== status.spoilerText) return status;
  const missingPoll = status.pollId === null && typeof input.attach === 'function';
  if (sameReferences(status, read) && !missingPoll) return status;
  const attached = missingPoll && input.attach ? await input.attach(status.id, null) : { pollId: status.pollId, writes: [] };
  if (sameReferences(status, read) && attached.pollId === null) return status;
  return (await refreshReferences(core, status, read, attached, false)) ?? status;
}

/** An edit from another server (Update of a Note). Only its author may; records the previous
 * text in the history (the original too on the first edit) and 'status.updated'. null when no
 * live status has the uri; a 403 when `input.authorId` did not write it. */
export async function updateRemoteStatus(core: Core, input: RemoteStatusInput): Promise<Status | null> {
  const author = await remoteAuthor(core, input.authorId);
  const read = await readInput(core, input);
  const status = await core.storage.statuses.findByUri(read.uri);
  if (status === null) return null;
  if (status.accountId !== author.id) throw forbidden();
  await refreshRemoteQuote(core, status, input.quote, input.quotePolicy);
  const sameText = read.content === status.content && read.spoilerText === status.spoilerText && read.sensitive === status.sensitive && read.language === status.language;
  const attached = typeof input.attach === 'function' ? await input.attach(status.id, status.pollId) : { pollId: status.pollId, writes: [] };
  const editedAt = input.editedAt === null || input.editedAt === undefined ? core.clock.now() : remoteTime(core, input.editedAt);
  // Another status quoted, or none: part of the edit (Mastodon swaps a quote only with an edit).
  const quoteWrites = await remoteQuoteChange(core, status, author, input.quote, editedAt);
  if (sameText && quoteWrites.length === 0) {
    const sameRefs = sameReferences(status, read);
    if (sameRefs && attached.writes.length === 0 && attached.pollId === status.pollId) return status;
    // The same text: no edit. Mentions or hashtags an earlier copy lacked are set (Mastodon
    // does not count them as an edit either); a poll changed as the author's server states it
    // is stored with the status. New counts alone are not news to readers (a stream's
    // status.update reads as an edit), so they go without any event; anything else is streamed.
    return refreshReferences(core, status, read, attached, sameRefs && attached.countsOnly === true);
  }
  const revision = (from: Revised, at: Millis): StatusEdit => revisionOf(core, status, from, null, at);
  const revisions: StatusEdit[] = [];
  if (status.editedAt === null) revisions.push(revision(status, status.createdAt));
  revisions.push(revision({ ...read, mediaIds: status.mediaIds }, editedAt));
  return core.storage.statuses.update(
    status.id,
    {
      text: read.text,
      content: read.content,
      spoilerText: read.spoilerText,
      sensitive: read.sensitive,
      language: read.language,
      mentionIds: read.mentionIds,
      tags: read.tags,
      mediaIds: status.mediaIds,
      pollId: attached.pollId,
      editedAt,
    },
    revisions,
    { writes: [...attached.writes, ...quoteWrites], outbox: (edited) => (edited === null ? [] : core.record({ type: 'status.updated', status: edited })) },
  );
}

/** A Delete from another server: only the author (`actorId`) may delete; its boosts go with it
 * and 'status.deleted' is recorded, as for a local delete. null when no live status has the
 * uri; a 403 for anyone else. */
export async function deleteRemoteStatus(core: Core, uri: string, actorId: Id): Promise<Status | null> {
  const status = await core.storage.statuses.findByUri(uri);
  if (status === null) return null;
  if (status.accountId !== actorId) throw forbidden();
  const removed = await core.storage.statuses.delete(status.id, core.clock.now(), counterEffects(status), (deleted) =>
    deleted === null ? [] : core.record({ type: 'status.deleted', status: deleted.status, boosts: deleted.boosts }),
  );
  return removed?.status ?? null;
}
