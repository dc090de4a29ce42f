// Preview cards: the first eligible link of a new or edited status is
// fetched in the background (a job per event, through the PageFetcher port: by default
// rookery/node's fetcher, so the instance's one fetch policy: public addresses only unless a
// test allows others, time, size and redirect limits, the instance's User-Agent),
// its oEmbed or OpenGraph data becomes one shared PreviewCard (its picture kept here, see
// image.ts), the card is inlined on the Status, a `status.update` goes out when it arrives
// (recorded with the attach write), and operation 17 (GET /api/v1/statuses/:id/card) answers it.
// GET /api/v1/trends/links ranks the cards of recent statuses (trends.ts).

import {
  checkOptions,
  extractEntities,
  forbidden,
  imagesService,
  json,
  offsetPagedJson,
  offsetWindow,
  option,
  renderCard,
  type Id,
  type OptionSpec,
  type PreviewCard,
  type RookeryConfig,
  type RookeryPlugin,
  rookeryUserAgent,
  type Status,
} from 'rookery/plugin-kit';
import { FETCHER_OPTIONS, nodeFetcher, type FetcherOptions, type PageFetcher } from './fetcher.ts';
import { pictureName, withLocalPicture } from './image.ts';
import { renderAdminLink, renderPublisher, publishersOf } from './trends.ts';
import { cardFromPage } from './parse.ts';
import { cardStorage } from './storage/index.ts';
import { renderTrendingLink, trendingLinks } from './trends.ts';

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
export function firstEligibleUrl(config: Pick<RookeryConfig, 'domain' | 'baseUrl'>, status: Status): string | null {
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
    if (url.host.toLowerCase() === config.domain.toLowerCase() || url.origin === new URL(config.baseUrl).origin) continue;
    return entity.url;
  }
  return null;
}

const OPTIONS: OptionSpec = {
  fetcher: option.implementing('a PageFetcher (fetch)', ['fetch']),
  fetch: option.object('cardsPlugin', FETCHER_OPTIONS),
};

export function cardsPlugin(options: CardsPluginOptions = {}): RookeryPlugin {
  checkOptions('cardsPlugin', options, OPTIONS);
  return {
    name: 'cards',
    register(host) {
      const cards = host.storage(cardStorage);
      const fetcher = options.fetcher ?? nodeFetcher(options.fetch, rookeryUserAgent(host.config.baseUrl));

      const fetchCard = async (event: { status: Status }) => {
        // The status as it is now (the event may be old), whoever may see it: the card is the author's.
        const status = await host.system.statuses.get(event.status.id);
        if (status === null || status.reblogOfId !== null) return;
        const url = firstEligibleUrl(host.config, status);
        if (url === null) return;
        let card = await cards.findByUrl(url);
        const now = host.clock.now();
        if (card === null || now - card.fetchedAt > REFETCH_AFTER) {
          const fresh = await cardFromPage(fetcher, url, now, () => host.newId());
          if (fresh === null) return;
          const previous = card;
          const images = host.service(imagesService);
          // Under the id it is stored with: upsert keeps an existing card's.
          card = await cards.upsert(await withLocalPicture({ ...fresh, id: previous?.id ?? fresh.id }, fetcher, images));
          if (previous !== null && previous.image !== null) await images?.removePreview(pictureName(previous));
        }
        const current = (await cards.forStatuses([status.id])).get(status.id);
        if (current?.id === card.id && current.fetchedAt === card.fetchedAt) return;
        await cards.attach(status.id, card.id, () => host.record({ type: 'status.refreshed', status }));
      };
      // Most statuses link to nothing: they queue no job. An edit that adds a link is an
      // event of its own, so the text as the event has it is the one to look at.
      const linksOut = (event: { status: Status }) => event.status.reblogOfId === null && firstEligibleUrl(host.config, event.status) !== null;
      host.on('status.created', fetchCard, { maxAttempts: 3, when: linksOut });
      host.on('status.updated', fetchCard, { maxAttempts: 3, when: linksOut });

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
          const found = await host.statuses.visible(request.caller.account, request.params['id'] ?? '');
          const target = found.original ?? found.status;
          const card = (await cards.forStatuses([target.id])).get(target.id);
          return json(card ? renderCard(card) : {});
        },
      });

      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/trends/links',
        auth: 'optional',
        scopes: [],
        handle: async (request) => {
          const params = { ...request.query, ...request.body };
          const window = offsetWindow(params, 10);
          const links = (await trendingLinks(host, cards)).slice(window.offset, window.offset + window.limit);
          return offsetPagedJson(host.config, request.path, params, links.map(renderTrendingLink), window);
        },
      });

      // The admin API's trending links and their publishers (Mastodon 4.4), for a role that
      // may manage taxonomies; they take over the core's empty answers.
      const adminList = (path: string, render: (all: Awaited<ReturnType<typeof trendingLinks>>) => unknown[], defaultLimit: number) =>
        host.addEndpoint({
          method: 'GET',
          path,
          auth: 'optional',
          scopes: ['admin:read'],
          handle: async (request) => {
            if (!host.moderation.can(request.caller.account, 'manage_taxonomies')) throw forbidden();
            const params = { ...request.query, ...request.body };
            const window = offsetWindow(params, defaultLimit);
            const all = render(await trendingLinks(host, cards)).slice(window.offset, window.offset + window.limit);
            return offsetPagedJson(host.config, request.path, params, all, window);
          },
        });
      adminList('/api/v1/admin/trends/links', (all) => all.map(renderAdminLink), 10);
      adminList('/api/v1/admin/trends/links/publishers', (all) => publishersOf(all).map(renderPublisher), 10);
    },
  };
}
