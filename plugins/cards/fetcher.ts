// The PageFetcher port and its implementation on rookery/node's fetcher, which every outgoing
// request of the instance goes through: only public addresses (the literal, every DNS answer,
// the address connected to, each redirect), bounded in time, body size and redirects, and
// saying who fetches.

import { ROOKERY_VERSION } from 'rookery';
import { createFetcher } from 'rookery/node';
import { checkOptions, option, type OptionSpec } from 'rookery/plugin-kit';

export { FetchRefused } from 'rookery/node';

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export interface PageFetcher {
  fetch(url: string, accept: string): Promise<FetchedPage>;
  /** The bytes of a page's picture (2xx only; throws otherwise). Optional: without it, cards
   * have no picture. */
  fetchImage?(url: string): Promise<Uint8Array>;
}

/** The largest picture fetched for a card (Mastodon's limit for preview card images). */
export const CARD_IMAGE_BYTES = 8 * 1024 * 1024;

export interface FetcherOptions {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** true: any address; a function: those it accepts. Default: public addresses only. For tests. */
  allowPrivateAddresses?: boolean | ((address: string) => boolean);
}

export const FETCHER_OPTIONS: OptionSpec = {
  timeoutMs: option.integer(1, 600_000),
  maxBytes: option.integer(1024, 100 * 1024 * 1024),
  maxRedirects: option.integer(0, 20),
  allowPrivateAddresses: option.either(option.boolean(), option.function()),
};

/** `userAgent`: what the requests say they are (the plugin passes rookeryUserAgent(baseUrl)). */
export function nodeFetcher(options: FetcherOptions = {}, userAgent = `Rookery/${ROOKERY_VERSION}`): PageFetcher {
  checkOptions('nodeFetcher', options, FETCHER_OPTIONS);
  const fetcher = createFetcher({
    userAgent,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 1_048_576,
    maxRedirects: options.maxRedirects ?? 3,
    ...(options.allowPrivateAddresses === undefined ? {} : { allowPrivateAddresses: options.allowPrivateAddresses }),
  });
  return {
    async fetch(url, accept) {
      const page = await fetcher.fetch(url, { headers: { accept } });
      return { url: page.url, status: page.status, contentType: String(page.headers['content-type'] ?? ''), body: page.body.toString('utf8') };
    },
    async fetchImage(url) {
      const answer = await fetcher.fetch(url, { headers: { accept: 'image/*' }, maxBytes: CARD_IMAGE_BYTES });
      if (answer.status < 200 || answer.status >= 300) throw new Error(`the picture answered ${answer.status}`);
      return new Uint8Array(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
    },
  };
}
