// Lists: their owner's only (anyone else gets 404), at most limits.maxLists each, members only
// among the accounts the owner follows, each member once.

import { findAccount } from './accounts/find.ts';
import type { Core } from './context.ts';
import { showsInList as showsInListFeed } from './feeds.ts';
import { notFound, unprocessable } from './errors.ts';
import { MAX_LENGTH, tooLongText } from './lengths.ts';
import { compareIds, isId } from './ids.ts';
import { LIST_REPLIES_POLICIES, type Account, type Id, type List, type ListRepliesPolicy } from './model.ts';

export const listTexts = {
  titleBlank: "Validation failed: Title can't be blank",
  titleTooLong: `Validation failed: ${tooLongText('Title', MAX_LENGTH.listTitle)}`,
  tooManyIds: 'Too many ids requested',
  policyInvalid: 'Validation failed: Replies policy is not included in the list',
  tooMany: 'Validation failed: You have reached the maximum number of lists',
  duplicate: 'Validation failed: Account has already been taken',
} as const;

export interface ListInput {
  title?: string | undefined;
  repliesPolicy?: string | undefined;
  exclusive?: boolean | undefined;
}

/** The actor's list, or 404 (someone else's list does not exist for them). */
export async function ownList(core: Core, actor: Account, id: string): Promise<List> {
  const list = isId(id) ? await core.storage.lists.get(id) : null;
  if (list === null || list.accountId !== actor.id) throw notFound();
  return list;
}

function repliesPolicyOf(value: string | undefined): ListRepliesPolicy | undefined {
  if (value === undefined || value === '') return undefined;
  const policy = LIST_REPLIES_POLICIES.find((p) => p === value);
  if (policy === undefined) throw unprocessable(listTexts.policyInvalid);
  return policy;
}

function checkTitle(title: string | undefined): void {
  if (title === undefined || title.trim() === '') throw unprocessable(listTexts.titleBlank);
  if (title.length > MAX_LENGTH.listTitle) throw unprocessable(listTexts.titleTooLong);
}

/** Accounts added or removed in one request (clients send one; Mastodon reads at most 40 ids
 * in its batch reads). */
export const MAX_MEMBER_IDS = 100;

export async function createList(core: Core, actor: Account, input: ListInput): Promise<List> {
  checkTitle(input.title);
  const repliesPolicy = repliesPolicyOf(input.repliesPolicy) ?? 'list';
  const existing = await core.storage.lists.listBy(actor.id);
  if (existing.length >= core.config.limits.maxLists) throw unprocessable(listTexts.tooMany);
  const list: List = {
    id: core.ids.next(),
    accountId: actor.id,
    title: input.title ?? '',
    repliesPolicy,
    exclusive: input.exclusive ?? false,
    createdAt: core.clock.now(),
  };
  await core.storage.lists.create(list);
  return list;
}

/** Changes what was sent; a title that is sent must not be blank. */
export async function updateList(core: Core, actor: Account, id: string, input: ListInput): Promise<List> {
  const list = await ownList(core, actor, id);
  if (input.title !== undefined) checkTitle(input.title);
  const patch: Partial<Pick<List, 'title' | 'repliesPolicy' | 'exclusive'>> = {};
  if (input.title !== undefined) patch.title = input.title;
  const policy = repliesPolicyOf(input.repliesPolicy);
  if (policy !== undefined) patch.repliesPolicy = policy;
  if (input.exclusive !== undefined) patch.exclusive = input.exclusive;
  const updated = await core.storage.lists.update(list.id, patch);
  if (updated === null) throw notFound();
  return updated;
}

export async function deleteList(core: Core, actor: Account, id: string): Promise<void> {
  const list = await ownList(core, actor, id);
  await core.storage.lists.delete(list.id);
}

/** Adds every account or none: each must exist and be followed by the owner (else 404) and
 * not be a member yet (else 422). */
export async function addListMembers(core: Core, actor: Account, id: string, accountIds: readonly string[]): Promise<void> {
  const list = await ownList(core, actor, id);
  const unique = [...new Set(accountIds)];
  if (unique.length > MAX_MEMBER_IDS) throw unprocessable(listTexts.tooManyIds);
  if (unique.length === 0) return;
  for (const accountId of unique) await findAccount(core, accountId);
  const facts = await core.storage.relationships.relationships(actor.id, unique);
  if (facts.some((f) => f.following === null)) throw notFound();
  const outcome = await core.storage.lists.addMembers(list.id, unique, unique.map(() => core.ids.next()));
  if (outcome === 'duplicate') throw unprocessable(listTexts.duplicate);
}

export async function removeListMembers(core: Core, actor: Account, id: string, accountIds: readonly string[]): Promise<void> {
  const list = await ownList(core, actor, id);
  const ids = [...new Set(accountIds.filter(isId))];
  if (ids.length > MAX_MEMBER_IDS) throw unprocessable(listTexts.tooManyIds);
  if (ids.length > 0) await core.storage.lists.removeMembers(list.id, ids);
}

/** The actor's lists that contain an account, oldest first. */
export async function listsWithMember(core: Core, actor: Account, accountId: string): Promise<List[]> {
  const member = await findAccount(core, accountId);
  const lists = await core.storage.lists.listsContaining(member.id);
  return lists.filter((l) => l.accountId === actor.id).sort((a, b) => compareIds(a.id, b.id));
}

/** Whether a status of a member belongs in the list under its replies policy (the rule the
 * list stream follows too, see events/routing.ts): replies to someone else show with
 * `followed` when the owner follows (or is) that someone, with `list` when that someone is a
 * member, never with `none`. */
/** The list's replies policy (feeds.ts) for a status, from the list's members and the
 * accounts its owner follows. */
export function showsInList(status: { accountId: Id; inReplyToAccountId: Id | null }, list: List, members: ReadonlySet<Id>, ownerFollows: ReadonlySet<Id>): boolean {
  const target = status.inReplyToAccountId;
  return showsInListFeed(status, list, target !== null && members.has(target), target !== null && ownerFollows.has(target));
}
