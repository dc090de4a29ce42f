// A PreviewCard from a fetched page: its oEmbed (link, photo, video; rich is refused) when it
// announces one, else its OpenGraph and <meta> tags.

import type { Id, Millis, PreviewCard } from 'rookery/plugin-kit';
import type { PageFetcher } from './fetcher.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

function decode(text: string): string {
  return text
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16) || 0xfffd);
      if (name.startsWith('#')) return ENTITIES[name] ?? String.fromCodePoint(Number(name.slice(1)) || 0xfffd);
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .trim();
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z:_-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
    const name = m[1]?.toLowerCase();
    if (name) out[name] = decode(m[3] ?? m[4] ?? m[5] ?? '');
  }
  return out;
}

function metaTags(html: string): Map<string, string> {
  const meta = new Map<string, string>();
  for (const m of html.matchAll(/<meta\b[^>]*>/gi)) {
    const attrs = attributes(m[0]);
    const key = (attrs['property'] ?? attrs['name'] ?? '').toLowerCase();
    if (key && attrs['content'] !== undefined && !meta.has(key)) meta.set(key, attrs['content']);
  }
  return meta;
}

function absolute(value: string | undefined, base: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
const int = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0);

export async function cardFromPage(fetcher: PageFetcher, url: string, now: Millis, newId: () => Id): Promise<PreviewCard | null> {
  let page;
  try {
    page = await fetcher.fetch(url, 'text/html, application/xhtml+xml');
  } catch {
    return null;
  }
  if (page.status < 200 || page.status >= 300 || !/html/i.test(page.contentType)) return null;
  const html = page.body;
  const base: PreviewCard = {
    id: newId(), url, title: '', description: '', type: 'link', authorName: '', authorUrl: '', providerName: '', providerUrl: '', html: '',
    width: 0, height: 0, image: null, imageDescription: '', embedUrl: '', blurhash: null, language: null, publishedAt: null, fetchedAt: now,
  };
  const language = /<html\b[^>]*\blang\s*=\s*["']?([a-zA-Z-]{2,10})/i.exec(html)?.[1];
  if (language) base.language = language.slice(0, 2).toLowerCase();

  const oembedLink = [...html.matchAll(/<link\b[^>]*>/gi)].map((m) => attributes(m[0])).find((a) => (a['type'] ?? '').toLowerCase() === 'application/json+oembed' && a['href']);
  const oembedUrl = absolute(oembedLink?.['href'], page.url);
  if (oembedUrl !== null) {
    try {
      const answer = await fetcher.fetch(oembedUrl, 'application/json');
      const data = JSON.parse(answer.body) as Record<string, unknown>;
      const type = String(data['type'] ?? '');
      if (answer.status === 200 && (type === 'link' || type === 'photo' || type === 'video')) {
        const text = (key: string) => (typeof data[key] === 'string' ? clip(decode(data[key] as string), 2000) : '');
        return {
          ...base,
          type,
          title: text('title'),
          authorName: text('author_name'),
          authorUrl: absolute(text('author_url'), page.url) ?? '',
          providerName: text('provider_name'),
          providerUrl: absolute(text('provider_url'), page.url) ?? '',
          html: type === 'video' ? text('html') : '',
          width: int(data['width']),
          height: int(data['height']),
          image: absolute(type === 'photo' ? text('url') : text('thumbnail_url'), page.url),
          embedUrl: type === 'photo' ? (absolute(text('url'), page.url) ?? '') : '',
        };
      }
    } catch {
      // No usable oEmbed: fall back to the page's own tags.
    }
  }
  const meta = metaTags(html);
  const title = meta.get('og:title') ?? decode(/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '');
  if (title === '') return null;
  const published = Date.parse(meta.get('article:published_time') ?? '');
  return {
    ...base,
    title: clip(title, 2000),
    description: clip(meta.get('og:description') ?? meta.get('description') ?? '', 2000),
    providerName: clip(meta.get('og:site_name') ?? '', 2000),
    authorName: clip(meta.get('author') ?? '', 2000),
    image: absolute(meta.get('og:image'), page.url),
    imageDescription: clip(meta.get('og:image:alt') ?? '', 2000),
    width: int(meta.get('og:image:width')),
    height: int(meta.get('og:image:height')),
    publishedAt: Number.isFinite(published) ? published : null,
  };
}
