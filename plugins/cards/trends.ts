// Trending links (GET /api/v1/trends/links): the preview cards of recent statuses that may trend
// (the core's rule, mayTrend), ranked as trending hashtags are (docs/behaviour.md, "Trends"): by
// how many accounts shared the link in the last TREND_DAYS days, then how many statuses, then
// the newest share. Each card carries its 7-day history of shares.

import {
  compareIds,
  DAY,
  historyOf,
  HISTORY_DAYS,
  mayTrend,
  renderCard,
  startOfDay,
  STATUS_CANDIDATES,
  TREND_DAYS,
  type HistoryDay,
  type Id,
  type PluginHost,
  type PreviewCard,
} from 'rookery/plugin-kit';
import type { CardRepository } from './storage/index.ts';

export interface TrendingLink {
  card: PreviewCard;
  history: HistoryDay[];
}

export async function trendingLinks(host: PluginHost, cards: CardRepository): Promise<TrendingLink[]> {
  const now = host.clock.now();
  const since = startOfDay(now) - (HISTORY_DAYS - 1) * DAY;
  const recentFrom = startOfDay(now) - (TREND_DAYS - 1) * DAY;
  const statuses = (await host.system.statuses.query({ visibilities: ['public'], excludeReblogs: true }, { limit: STATUS_CANDIDATES })).filter((s) => s.createdAt >= since);
  const authors = new Map((await host.system.accounts.getMany([...new Set(statuses.map((s) => s.accountId))])).map((a) => [a.id, a]));
  const eligible = statuses.filter((s) => mayTrend(s, authors.get(s.accountId)));
  const cardOf = eligible.length === 0 ? new Map<Id, PreviewCard>() : await cards.forStatuses(eligible.map((s) => s.id));
  const shares = new Map<Id, { card: PreviewCard; uses: { accountId: Id; createdAt: number }[] }>();
  for (const status of eligible) {
    const card = cardOf.get(status.id);
    if (card === undefined) continue;
    const entry = shares.get(card.id) ?? { card, uses: [] };
    entry.uses.push({ accountId: status.accountId, createdAt: status.createdAt });
    shares.set(card.id, entry);
  }
  const ranked: (TrendingLink & { accounts: number; count: number; newest: number })[] = [];
  for (const { card, uses } of shares.values()) {
    const recent = uses.filter((u) => u.createdAt >= recentFrom);
    if (recent.length === 0) continue;
    ranked.push({
      card,
      history: historyOf(uses, now),
      accounts: new Set(recent.map((u) => u.accountId)).size,
      count: recent.length,
      newest: Math.max(...recent.map((u) => u.createdAt)),
    });
  }
  ranked.sort((a, b) => b.accounts - a.accounts || b.count - a.count || b.newest - a.newest || compareIds(b.card.id, a.card.id));
  return ranked.map(({ card, history }) => ({ card, history }));
}

/** A trending link as Mastodon shows it: the PreviewCard with its history (strings, day in unix seconds). */
export function renderTrendingLink(link: TrendingLink) {
  return {
    ...renderCard(link.card),
    history: link.history.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts) })),
  };
}

/** A trending link as the admin API shows it: with the card's id, and nothing awaiting review
 * (every link may trend here). */
export function renderAdminLink(link: TrendingLink) {
  return { ...renderTrendingLink(link), id: link.card.id, requires_review: false };
}

/** The sites the trending links come from, each once, in the links' order. */
export function publishersOf(links: readonly TrendingLink[]): string[] {
  const domains = new Set<string>();
  for (const link of links) {
    try {
      domains.add(new URL(link.card.url).hostname.toLowerCase());
    } catch {
      // A card's URL was checked when it was fetched; one that no longer parses names no site.
    }
  }
  return [...domains];
}

/** A stable id for a publisher's domain (no table holds them): FNV-1a, 63 bits, as a decimal. */
function publisherId(domain: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(domain)) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return String((hash & ((1n << 63n) - 1n)) || 1n);
}

/** Mastodon's PreviewCardProvider as the admin API shows it. */
export function renderPublisher(domain: string) {
  return { id: publisherId(domain), domain, trendable: true, reviewed_at: null, requested_review_at: null, requires_review: false };
}
