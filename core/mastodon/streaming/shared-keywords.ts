// One keyword automaton for all of a process's stream subscribers, so that a status event's text
// is scanned once, not once for each subscriber with a keyword filter: with a thousand of them,
// their own scans were a third of a busy streaming process's time.
//
// It is built from the subscribers' states as they are at that moment. A state loaded after
// (a new subscriber, a changed filter) is screened with its own automaton until the next build,
// and builds come at most once a second: a stream of filter changes cannot make every event pay
// for one. Its size is bounded; the states left out of it keep their own automaton.

import { compileKeywords, type Keyword, type KeywordMatcher } from '../../domain/text/keywords.ts';
import type { Filter, Millis } from '../../domain/model.ts';

/** What a subscriber's state holds of its keyword filters (subscriber.ts). */
export interface KeywordFilters {
  readonly filters: readonly Filter[];
  /** The state's own automaton, compiled from the keywords of `filters`. */
  readonly keywords: KeywordMatcher;
}

const BUILD_AT_MOST_EVERY_MS = 1000;
/** Keywords in the shared automaton (a subscriber at the filter limits has thousands). */
const MAX_SHARED_KEYWORDS = 100_000;

const NOTHING_FOUND: ReadonlyMap<string, readonly string[]> = new Map();

export class SharedKeywords {
  readonly #live: () => Iterable<KeywordFilters>;
  readonly #maxKeywords: number;
  #matcher: KeywordMatcher | null = null;
  #covered = new WeakSet<KeywordFilters>();
  #builtAt = -Infinity;
  #lastText: string | null = null;
  #lastFound = new Map<string, string[]>();

  /** `live`: the states of the subscribers there are now. */
  constructor(live: () => Iterable<KeywordFilters>, maxKeywords = MAX_SHARED_KEYWORDS) {
    this.#live = live;
    this.#maxKeywords = maxKeywords;
  }

  /** What the keywords of `state`'s filters find in `text`, by filter id, as its own automaton
   * would find them (read-only: shared by every subscriber of the event). */
  match(state: KeywordFilters, text: string, now: Millis): ReadonlyMap<string, readonly string[]> {
    if (state.keywords.size === 0) return NOTHING_FOUND;
    if (!this.#covered.has(state) && now - this.#builtAt >= BUILD_AT_MOST_EVERY_MS) this.#build(now);
    if (this.#matcher === null || !this.#covered.has(state)) return state.keywords.match(text);
    if (text !== this.#lastText) {
      this.#lastFound = this.#matcher.match(text);
      this.#lastText = text;
    }
    return this.#lastFound;
  }

  #build(now: Millis): void {
    this.#builtAt = now;
    const keywords: Keyword[] = [];
    const covered = new WeakSet<KeywordFilters>();
    for (const state of this.#live()) {
      if (state.keywords.size === 0 || covered.has(state)) continue;
      if (keywords.length + state.keywords.size > this.#maxKeywords) continue;
      // Filter ids are unique, so each filter's keywords stay a group of their own.
      for (const filter of state.filters) for (const k of filter.keywords) keywords.push({ group: filter.id, keyword: k.keyword, wholeWord: k.wholeWord });
      covered.add(state);
    }
    this.#matcher = compileKeywords(keywords);
    this.#covered = covered;
    this.#lastText = null;
  }
}
