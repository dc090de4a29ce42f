// Editing a status (PUT /api/v1/statuses/:id), its history and its source. Own statuses
// only; visibility and reply target never change; publish's validations apply, and
// `quoted_status_id` removes or replaces the quote (quote.ts, readQuoteEdit). The first edit
// also records the original, so the history always starts with what was first published.
// Media and polls belong to plugins: the draft starts from the status's own, and every hook
// that handles edits keeps, replaces or drops its part (and says what the poll was), with writes
// that commit with the edit.

import type { Core } from '../context.ts';
import { notFound } from '../errors.ts';
import { normalizeLanguage } from '../languages.ts';
import type { Account, Millis, Status, StatusEdit } from '../model.ts';
import { str, type Params } from '../params.ts';
import type { PublishDraft } from '../hooks.ts';
import { findLive, findVisible } from '../viewer.ts';
import { checkRawLength, readText, refuseUnhandledParams, renderText, runPublishHooks, validateText } from './compose.ts';
import { conflictError, type Author } from './publish.ts';
import { checkDirectQuote, newQuote, readQuoteEdit, readQuotePolicy, setQuotePolicy } from './quote.ts';

const PLUGIN_PARAMS = ['media_ids', 'poll'] as const;

/** What a revision records of a status. */
export type Revised = Pick<Status, 'text' | 'content' | 'spoilerText' | 'sensitive' | 'mediaIds'>;

/** One entry of a status's history: what it said (`from`) at `at`. Local and remote edits
 * record their history alike. */
export function revisionOf(core: Core, status: Status, from: Revised, pollOptions: string[] | null, at: Millis): StatusEdit {
  return {
    id: core.ids.next(),
    statusId: status.id,
    accountId: status.accountId,
    text: from.text,
    content: from.content,
    spoilerText: from.spoilerText,
    sensitive: from.sensitive,
    mediaIds: from.mediaIds,
    pollOptions,
    createdAt: at,
  };
}

export async function editStatus(core: Core, author: Author, id: string, params: Params): Promise<Status> {
  const status = await findLive(core, id);
  if (status.accountId !== author.account.id || status.reblogOfId !== null) throw notFound();
  refuseUnhandledParams(core, params, PLUGIN_PARAMS);
  const quotePolicy = readQuotePolicy(params);
  const quoteEdit = await readQuoteEdit(core, author.account, status, params);
  const parts = readText(params, status.sensitive, status);
  checkRawLength(core, parts);
  const draft: PublishDraft = {
    account: author.account,
    params,
    ...parts,
    visibility: status.visibility,
    language: normalizeLanguage(str(params, 'language')) ?? status.language,
    inReplyTo: null,
    applicationId: status.applicationId,
    idempotencyKey: null,
    statusId: status.id,
    mediaIds: [...status.mediaIds],
    pollId: status.pollId,
    pollOptions: null,
    previousPollOptions: null,
    writes: [],
    editing: true,
    current: status,
  };
  await runPublishHooks(core, draft, PLUGIN_PARAMS);
  validateText(core, draft, draft.mediaIds.length > 0);
  // Who may quote it is no part of its text: a change of policy alone makes no revision.
  if (quotePolicy !== undefined) await setQuotePolicy(core, status, quotePolicy);

  const unchanged =
    draft.text === status.text &&
    draft.spoilerText === status.spoilerText &&
    draft.sensitive === status.sensitive &&
    draft.language === status.language &&
    draft.mediaIds.join() === status.mediaIds.join() &&
    draft.pollId === status.pollId &&
    draft.writes.length === 0 &&
    quoteEdit.kind === 'keep';
  if (unchanged) return status;

  const rendered = await renderText(core, draft.text);
  const now = core.clock.now();
  // A quote removed or replaced is part of the edit: written with it, in its revision's time.
  const writes = [...draft.writes];
  if (quoteEdit.kind === 'replace') {
    checkDirectQuote(quoteEdit.quoted, author.account, status.visibility, rendered.mentionIds);
    writes.push(core.storage.quotes.attach({ removeQuoteOf: status.id, quote: newQuote(core, status.id, author.account, quoteEdit.quoted, now) }));
  } else if (quoteEdit.kind === 'remove') {
    writes.push(core.storage.quotes.attach({ removeQuoteOf: status.id }));
  }
  const revision = (from: Revised, options: string[] | null, at: number): StatusEdit => revisionOf(core, status, from, options, at);
  const revisions: StatusEdit[] = [];
  if (status.editedAt === null) revisions.push(revision(status, draft.previousPollOptions, status.createdAt));
  revisions.push(revision({ ...draft, content: rendered.content }, draft.pollId === null ? null : draft.pollOptions, now));
  const options: Parameters<Core['storage']['statuses']['update']>[3] & object = {
    outbox: (edited) => (edited === null ? [] : core.record({ type: 'status.updated', status: edited })),
  };
  if (writes.length > 0) options.writes = writes;
  let updated: Status | null;
  try {
    updated = await core.storage.statuses.update(
      status.id,
      {
        text: draft.text,
        content: rendered.content,
        spoilerText: draft.spoilerText,
        sensitive: draft.sensitive,
        language: draft.language,
        mentionIds: rendered.mentionIds,
        tags: rendered.tags,
        mediaIds: draft.mediaIds,
        pollId: draft.pollId,
        editedAt: now,
      },
      revisions,
      options,
    );
  } catch (err) {
    throw conflictError(err, draft);
  }
  if (updated === null) throw notFound();
  return updated;
}

/** Oldest first, the original included; an unedited status has one entry (null: build it
 * from the status as it is). */
export async function statusHistory(core: Core, viewer: Account | null, id: string): Promise<{ status: Status; edits: StatusEdit[] | null }> {
  const { status } = await findVisible(core, viewer, id);
  const edits = await core.storage.statuses.edits(status.id);
  return { status, edits: edits.length > 0 ? edits : null };
}

export async function statusSource(core: Core, viewer: Account, id: string): Promise<Status> {
  return (await findVisible(core, viewer, id)).status;
}
