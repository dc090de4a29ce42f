// What one account keeps out of its sight, held for its live streams: blocks both ways, mutes,
// domain blocks, chosen languages and keyword filters. Loaded once per account when its first
// stream opens and reloaded when the account's system channel says it changed, so delivering a
// status costs set lookups and one scan of its text, never a query per subscriber.

import type { AppCore } from '../context.ts';
import type { Filter, Id, Millis } from '../../domain/model.ts';
import type { StatusFacts } from '../../domain/ports/bus.ts';
import { isActive, keywordMatcher, renderFilter, type FilterResultJson } from '../entities/filter.ts';
import type { KeywordMatcher } from '../../domain/text/keywords.ts';
import type { StreamContext } from './streams.ts';
import type { SharedKeywords } from './shared-keywords.ts';

export interface SubscriberState {
  blocking: ReadonlySet<Id>;
  blockedBy: ReadonlySet<Id>;
  /** Muted account → when the mute ends (null: never). */
  muting: ReadonlyMap<Id, Millis | null>;
  domains: ReadonlySet<string>;
  /** null: every language. */
  chosenLanguages: ReadonlySet<string> | null;
  filters: readonly Filter[];
  keywords: KeywordMatcher;
}

const NOBODY: ReadonlySet<string> = new Set();
const NO_MUTES: ReadonlyMap<Id, Millis | null> = new Map();
const NO_FILTERS: readonly Filter[] = [];

export async function loadSubscriberState(core: AppCore, accountId: Id): Promise<SubscriberState> {
  const now = core.clock.now();
  const [hidden, user, filters] = await Promise.all([
    core.storage.relationships.hiddenState(accountId, now),
    core.storage.accounts.getUser(accountId),
    core.storage.filters.listBy(accountId),
  ]);
  const chosen = user?.settings.chosenLanguages ?? null;
  // Most accounts hide nothing: they share the empty sets instead of holding their own.
  return {
    blocking: hidden.blocking.length === 0 ? NOBODY : new Set(hidden.blocking),
    blockedBy: hidden.blockedBy.length === 0 ? NOBODY : new Set(hidden.blockedBy),
    muting: hidden.muting.length === 0 ? NO_MUTES : new Map(hidden.muting.map((m) => [m.accountId, m.expiresAt])),
    domains: hidden.domains.length === 0 ? NOBODY : new Set(hidden.domains),
    chosenLanguages: chosen === null || chosen.length === 0 ? null : new Set(chosen),
    filters: filters.length === 0 ? NO_FILTERS : filters,
    keywords: keywordMatcher(filters),
  };
}

/**
 * Whether a status event reaches this subscriber, and with which filter results:
 * - not when the subscriber blocks or mutes anyone in it (author, boosted author, mentioned),
 *   is blocked by its author, or blocks its author's domain;
 * - on public streams, not in a language the subscriber did not choose (when they chose);
 * - not when a keyword or status filter of the stream's context says `hide`;
 * - otherwise with the `warn` (and `blur`) filters that match, for `filtered`.
 * Returns null to drop it. `shared`: the process's automaton, which scans each text once for
 * every subscriber (shared-keywords.ts); without it, the state's own.
 * It runs for every subscriber of every event, so it allocates nothing for a status that
 * matches no filter (the empty result is shared: callers must not change it).
 */
export function screen(state: SubscriberState, facts: StatusFacts, context: StreamContext, now: Millis, shared?: SharedKeywords): readonly FilterResultJson[] | null {
  for (const id of facts.accountIds) {
    if (state.blocking.has(id)) return null;
    if (state.muting.has(id)) {
      const until = state.muting.get(id);
      if (until === null || until === undefined || until > now) return null;
    }
  }
  for (const id of facts.authorIds) if (state.blockedBy.has(id)) return null;
  for (const domain of facts.domains) if (state.domains.has(domain)) return null;
  if (context === 'public' && state.chosenLanguages !== null && (facts.language === null || !state.chosenLanguages.has(facts.language))) return null;
  if (context === null || state.filters.length === 0) return NO_RESULTS;
  const byKeyword = state.keywords.size === 0 ? null : shared === undefined ? state.keywords.match(facts.text) : shared.match(state, facts.text, now);
  let results: FilterResultJson[] | null = null;
  for (const filter of state.filters) {
    if (!isActive(filter, now) || !filter.context.includes(context)) continue;
    const keywords = byKeyword?.get(filter.id);
    // The matched statuses' ids, as Mastodon reports them (not the FilterStatus rows').
    const statuses = filter.statuses.length === 0 ? null : filter.statuses.filter((s) => facts.statusIds.includes(s.statusId)).map((s) => s.statusId);
    const byStatus = statuses !== null && statuses.length > 0;
    if (keywords === undefined && !byStatus) continue;
    if (filter.action === 'hide') return null;
    (results ??= []).push({ filter: renderFilter(filter), keyword_matches: keywords === undefined ? null : [...keywords], status_matches: byStatus ? statuses : null });
  }
  return results ?? NO_RESULTS;
}

const NO_RESULTS: readonly FilterResultJson[] = Object.freeze([]);
