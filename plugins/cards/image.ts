// A card's picture, kept here: fetched once through the card fetcher (so under the instance's
// fetch policy) and made a bounded preview by the images service (the media plugin's), so that
// readers' browsers load it from this instance, with its size and blurhash. Without the service
// or the fetcher's fetchImage, or when either fails, the card has no picture: a third party's
// URL would have every reader's browser call that party (and an http one is mixed content).

import type { ImagesService, PreviewCard } from 'rookery/plugin-kit';
import type { PageFetcher } from './fetcher.ts';

/** The name a card's picture is kept under: new with each fetch, so a cached old one never
 * stands for a new one (the files are served as immutable). */
export const pictureName = (card: Pick<PreviewCard, 'id' | 'fetchedAt'>) => `card-${card.id}-${card.fetchedAt}`;

/** `card` as fetched (its `image` the page's own picture URL), under the id it is stored with. */
export async function withLocalPicture(card: PreviewCard, fetcher: PageFetcher, images: ImagesService | null): Promise<PreviewCard> {
  // oEmbed videos keep the player's size; links and photos take the picture's.
  const sized = card.type === 'video' ? {} : { width: 0, height: 0 };
  const none: PreviewCard = { ...card, ...sized, image: null, blurhash: null };
  if (card.image === null || images === null || fetcher.fetchImage === undefined) return none;
  let stored;
  try {
    stored = await images.storePreview(pictureName(card), await fetcher.fetchImage(card.image));
  } catch {
    return none;
  }
  if (stored === null) return none;
  return { ...card, ...(card.type === 'video' ? {} : { width: stored.width, height: stored.height }), image: stored.url, blurhash: stored.blurhash };
}
