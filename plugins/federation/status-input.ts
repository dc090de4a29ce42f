// A remote Note or Question as the core's RemoteStatusInput: its text, audience, reply target,
// mentions, hashtags and poll. One reading for every way a status arrives (a Create, an Update,
// a lookup by URL, a relay), so that a status is stored the same whichever came first.

import { pollsService, REMOTE_POLL_LIMITS, type Account, type Id, type PluginHost, type RemotePollInput, type Visibility } from 'rookery/plugin-kit';
import { Hashtag, Link, Mention, Note, Question, type Actor, type Object as APObject } from '@fedify/fedify/vocab';
import { findByUri } from './federation.ts';
import type { RemoteStatusInput } from './remote-api.ts';

const MAX_TAGS = 64;
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

export function text(value: unknown): string {
  return value == null ? '' : String(value);
}

export function millis(instant: { epochMilliseconds: number } | null | undefined): number | null {
  return instant == null ? null : instant.epochMilliseconds;
}

export function hrefOf(value: unknown): string | null {
  if (value instanceof URL) return value.href;
  if (value instanceof Link) return value.href?.href ?? null;
  return null;
}

async function firstOf<T>(items: AsyncIterable<T>): Promise<T | null> {
  for await (const item of items) return item;
  return null;
}

/** Whether an audience names the public collection (in any of the forms servers write). */
export function isPublicAudience(ids: readonly URL[]): boolean {
  return ids.some((id) => id.href === PUBLIC || id.href === 'as:Public' || id.href === 'Public');
}

function visibilityOf(object: APObject, author: Actor | null): Visibility {
  if (isPublicAudience(object.toIds)) return 'public';
  if (isPublicAudience(object.ccIds)) return 'unlisted';
  const followers = author?.followersId?.href;
  const audience = [...object.toIds, ...object.ccIds].map((url) => url.href);
  if (followers !== undefined && audience.includes(followers)) return 'private';
  return 'direct';
}

/** A Question's poll as its server states it: its options (the first 20, each title bounded
 * by the polls plugin), each one's votes (replies.totalItems), anyOf or oneOf, the end. */
async function pollOf(host: PluginHost, question: Question): Promise<RemotePollInput> {
  const multiple = (await firstOf(question.getInclusiveOptions({ suppressError: true }))) !== null;
  const options: RemotePollInput['options'] = [];
  let seen = 0;
  const listed = multiple ? question.getInclusiveOptions({ suppressError: true }) : question.getExclusiveOptions({ suppressError: true });
  for await (const option of listed) {
    if (++seen > 4 * REMOTE_POLL_LIMITS.options || options.length >= REMOTE_POLL_LIMITS.options) break;
    if (!(option instanceof Note) || option.name === null) continue;
    const replies = await option.getReplies({ suppressError: true });
    options.push({ title: text(option.name).slice(0, 4 * REMOTE_POLL_LIMITS.title), votes: replies?.totalItems ?? 0 });
  }
  const closed = question.closed;
  const closedAt = closed === true ? host.clock.now() : typeof closed === 'object' && closed !== null ? closed.epochMilliseconds : null;
  return { options, multiple, expiresAt: millis(question.endTime) ?? closedAt, votersCount: question.voters };
}

/** For a Question: the polls plugin stores its poll with the status (nothing without the
 * plugin; a Note has none). */
export async function pollAttachment(host: PluginHost, object: APObject, authorId: Id): Promise<Pick<RemoteStatusInput, 'attach'>> {
  if (!(object instanceof Question)) return {};
  const polls = host.service(pollsService);
  if (polls === null) return {};
  const poll = await pollOf(host, object);
  return { attach: (statusId, currentPollId) => polls.remotePoll(statusId, authorId, currentPollId, poll) };
}

/** The status `object` states, written by `author` (stored beforehand; `actor` is its document,
 * for its followers collection), or null without an id. */
export async function statusInputOf(host: PluginHost, object: Note | Question, author: Account, actor: Actor | null): Promise<RemoteStatusInput | null> {
  if (object.id === null) return null;
  const mentionIds: Id[] = [];
  const tags: string[] = [];
  let seen = 0;
  for await (const tag of object.getTags({ suppressError: true })) {
    // Bounded however many tags a sender lists (most of them could be of other kinds).
    if (++seen > 4 * MAX_TAGS || mentionIds.length + tags.length >= MAX_TAGS) break;
    if (tag instanceof Mention && tag.href !== null) {
      const account = await findByUri(host, tag.href.href);
      if (account !== null && !mentionIds.includes(account.id)) mentionIds.push(account.id);
    } else if (tag instanceof Hashtag) {
      const name = text(tag.name).replace(/^#/, '');
      if (name !== '' && !tags.includes(name)) tags.push(name);
    }
  }
  return {
    uri: object.id.href,
    url: hrefOf(object.url) ?? object.id.href,
    authorId: author.id,
    contentHtml: text(object.content),
    spoilerText: text(object.summary),
    sensitive: object.sensitive === true,
    visibility: visibilityOf(object, actor),
    language: null,
    inReplyToUri: object.replyTargetId?.href ?? null,
    mentionIds,
    tags,
    createdAt: millis(object.published) ?? host.clock.now(),
    editedAt: millis(object.updated),
    ...(await pollAttachment(host, object, author.id)),
  };
}
