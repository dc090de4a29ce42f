// Preview cards: the first eligible link of a new or edited status is
// fetched in the background (a job per event, through the PageFetcher port, with timeouts, size
// and redirect limits, never from private, loopback or link-local addresses unless allowed),
// its oEmbed or OpenGraph data becomes one shared PreviewCard, the card is inlined on the
// Status, a `status.update` goes out when it arrives (recorded with the attach write), and
// operation 17 (GET /api/v1/statuses/:id/card) answers it.

import type { Core } from '../../core/domain/context.ts';
import type { Id, PreviewCard, Status } from '../../core/domain/model.ts';
import type { RookeryPlugin } from '../../core/mastodon/plugin-host.ts';
import { renderCard } from '../../core/mastodon/entities/media.ts';
import { json } from '../../core/mastodon/endpoint/types.ts';
import { extractEntities } from '../../core/domain/text/index.ts';
import { findVisible } from '../../core/domain/viewer.ts';
import { nodeFetcher, type FetcherOptions, type PageFetcher } from './fetcher.ts';
import { cardFromPage } from './parse.ts';
import { cardStorage } from './storage/index.ts';

export { cardStorage, type CardRepository } from './storage/index.ts';
export { nodeFetcher, FetchRefused, type FetcherOptions, type FetchedPage, type PageFetcher } from './fetcher.ts';

export interface CardsPluginOptions {
  /** How pages are fetched (default: node:http(s) with the limits below). */
  fetcher?: PageFetcher;
  /** Options of the default fetcher (allowPrivateAddresses only for tests). */
  fetch?: FetcherOptions;
}

const MAX_URL_BYTES = 2692;
const REFETCH_AFTER = 14 * 86_400_000;

/** The first http(s) link of the text that is not on this instance and not too long. */
export function firstEligibleUrl(core: Core, status: Status): string | null {
  for (const entity of extractEntities(status.text)) {
    if (entity.kind !== 'url') continue;
    let url: URL;
    try {
      url = new URL(entity.url);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (new TextEncoder().encode(entity.url).length > MAX_URL_BYTES) continue;
    if (url.host.toLowerCase() === core.config.domain.toLowerCase() || url.origin === new URL(core.config.baseUrl).origin) continue;
    return entity.url;
  }
  return null;
}

export function cardsPlugin(options: CardsPluginOptions = {}): RookeryPlugin {
  return {
    name: 'cards',
    register(host) {
      const { core } = host;
      const cards = host.storage(cardStorage);
      const fetcher = options.fetcher ?? nodeFetcher(options.fetch);

      const fetchCard = async (event: { status: Status }) => {
        const status = await core.storage.statuses.get(event.status.id);
        if (status === null || status.reblogOfId !== null) return;
        const url = firstEligibleUrl(core, status);
        if (url === null) return;
        let card = await cards.findByUrl(url);
        const now = core.clock.now();
        if (card === null || now - card.fetchedAt > REFETCH_AFTER) {
          const fresh = await cardFromPage(fetcher, url, now, () => core.ids.next());
          if (fresh === null) return;
          card = await cards.upsert(fresh);
        }
        const current = (await cards.forStatuses([status.id])).get(status.id);
        if (current?.id === card.id && current.fetchedAt === card.fetchedAt) return;
        await cards.attach(status.id, card.id, () => core.record({ type: 'status.refreshed', status }));
      };
      host.on('status.created', fetchCard, { maxAttempts: 3 });
      host.on('status.updated', fetchCard, { maxAttempts: 3 });

      host.decorateStatuses<Map<Id, PreviewCard>>({
        load: (statuses) => (statuses.length === 0 ? Promise.resolve(new Map()) : cards.forStatuses(statuses.map((s) => s.id))),
        render(status, loaded, json) {
          const card = loaded.get(status.id);
          if (card) json.card = renderCard(card);
        },
      });

      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/statuses/:id/card',
        auth: 'optional',
        scopes: ['read', 'read:statuses'],
        handle: async (request) => {
          const found = await findVisible(core, request.caller.account, request.params['id'] ?? '');
          const target = found.original ?? found.status;
          const card = (await cards.forStatuses([target.id])).get(target.id);
          return json(card ? renderCard(card) : {});
        },
      });
    },
  };
}
