// MediaAttachment, Poll and PreviewCard → JSON, with the spec's types (strings where the spec
// says string, so an absent description or image is "" rather than null).

import type { MediaAttachment, MediaDimensions, Poll, PreviewCard } from '../../domain/model.ts';
import { iso, isoOrNull } from './time.ts';

function dimensions(d: MediaDimensions) {
  return { width: d.width, height: d.height, size: `${d.width}x${d.height}`, aspect: d.height === 0 ? 0 : d.width / d.height };
}

export function renderMedia(media: MediaAttachment) {
  const meta: Record<string, unknown> = { ...media.extra };
  if (media.original) meta['original'] = dimensions(media.original);
  if (media.small) meta['small'] = dimensions(media.small);
  if (media.focus) meta['focus'] = { x: media.focus.x, y: media.focus.y };
  return {
    id: media.id,
    type: media.type,
    url: media.url,
    preview_url: media.previewUrl,
    remote_url: media.remoteUrl,
    preview_remote_url: null,
    text_url: media.url,
    meta,
    description: media.description ?? '',
    blurhash: media.blurhash ?? '',
  };
}

export type MediaJson = ReturnType<typeof renderMedia>;
export type PollJson = ReturnType<typeof renderPoll>;
export type CardJson = ReturnType<typeof renderCard>;

/** `ownVotes` is null for an anonymous viewer. Totals stay hidden until the poll ends when asked. */
export function renderPoll(poll: Poll, now: number, ownVotes: number[] | null) {
  const expired = poll.expiresAt !== null && poll.expiresAt <= now;
  const showTotals = !poll.hideTotals || expired;
  const json: Record<string, unknown> = {
    id: poll.id,
    expires_at: isoOrNull(poll.expiresAt),
    expired,
    multiple: poll.multiple,
    votes_count: poll.votesCount,
    voters_count: poll.votersCount,
    options: poll.options.map((title, index) => ({ title, votes_count: showTotals ? (poll.votes[index] ?? 0) : null })),
    emojis: [],
  };
  if (ownVotes !== null) {
    json['voted'] = ownVotes.length > 0;
    json['own_votes'] = ownVotes;
  }
  return json;
}

export function renderCard(card: PreviewCard) {
  return {
    url: card.url,
    title: card.title,
    description: card.description,
    type: card.type,
    author_name: card.authorName,
    author_url: card.authorUrl,
    provider_name: card.providerName,
    provider_url: card.providerUrl,
    html: card.html,
    width: card.width,
    height: card.height,
    image: card.image ?? '',
    image_description: card.imageDescription,
    embed_url: card.embedUrl,
    blurhash: card.blurhash,
    language: card.language,
    published_at: card.publishedAt === null ? null : iso(card.publishedAt),
    authors: card.authorName === '' ? [] : [{ name: card.authorName, url: card.authorUrl, account: null }],
  };
}
