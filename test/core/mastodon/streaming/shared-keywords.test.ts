// The shared keyword automaton finds, for each subscriber, what the subscriber's own automaton
// finds; a state it was not built with is screened with its own until the next build, at most
// one a second; and a state that would take it past its size is left to its own.

import t from 'tap';
import type { Filter } from '../../../../core/domain/model.ts';
import { keywordMatcher } from '../../../../core/mastodon/entities/filter.ts';
import { SharedKeywords, type KeywordFilters } from '../../../../core/mastodon/streaming/shared-keywords.ts';

let nextId = 1;
function filter(keywords: [string, boolean][]): Filter {
  const id = String(nextId++);
  return {
    id,
    accountId: '1',
    title: `filter ${id}`,
    context: ['public'],
    action: 'warn',
    expiresAt: null,
    keywords: keywords.map(([keyword, wholeWord], i) => ({ id: `${id}-${i}`, keyword, wholeWord })),
    statuses: [],
    createdAt: 0,
  };
}

/** A subscriber's state whose own automaton counts its scans. */
function state(filters: Filter[]): KeywordFilters & { ownScans: number } {
  const own = keywordMatcher(filters);
  const counted = {
    filters,
    ownScans: 0,
    keywords: {
      size: own.size,
      match: (text: string) => {
        counted.ownScans++;
        return own.match(text);
      },
    },
  };
  return counted;
}

const plain = (found: ReadonlyMap<string, readonly string[]>, filters: readonly Filter[]) =>
  Object.fromEntries(filters.flatMap((f) => (found.has(f.id) ? [[f.id, [...(found.get(f.id) ?? [])]]] : [])));

t.test('each subscriber gets what its own automaton finds, the text scanned once for all', async (t) => {
  const states = [
    state([filter([['cat', true], ['dog', false]]), filter([['Hot dog', true]])]),
    state([filter([['dog', true], ['dogs', true]])]),
    state([filter([['ça', true], ['été', false], ['cat', false]])]),
    state([filter([['cat', true], ['cat', true]])]),
    state([]),
  ];
  const shared = new SharedKeywords(() => states);
  const texts = ['A hot dog and a cat', 'concatenate hotdogs', 'Ça va? un été, des dogs', 'cat_ cat- (cat)', '', 'nothing here'];
  for (const text of texts) {
    for (const s of states) {
      const expected = keywordMatcher(s.filters).match(text);
      t.strictSame(plain(shared.match(s, text, 10_000), s.filters), plain(expected, s.filters), `${JSON.stringify(text)}, filters ${s.filters.map((f) => f.id).join(',')}`);
    }
  }
  t.strictSame(
    states.map((s) => s.ownScans),
    [0, 0, 0, 0, 0],
    'no subscriber scanned a text with its own automaton',
  );
});

t.test('a state loaded after the build uses its own automaton until the next, a second later at the soonest', async (t) => {
  const early = state([filter([['early', true]])]);
  const live: KeywordFilters[] = [early];
  const shared = new SharedKeywords(() => live);
  t.strictSame(plain(shared.match(early, 'early bird', 0), early.filters), { [early.filters[0]?.id ?? '']: ['early'] });
  const late = state([filter([['late', true]])]);
  live.push(late);
  t.strictSame(plain(shared.match(late, 'late again', 999), late.filters), { [late.filters[0]?.id ?? '']: ['late'] }, 'found all the same');
  t.equal(late.ownScans, 1, 'with its own automaton, within the second');
  shared.match(late, 'later still', 1000);
  t.equal(late.ownScans, 1, 'a second after the last build, a new one takes it in');
  t.equal(early.ownScans, 0);
});

t.test('a state that would take the shared automaton past its size keeps its own', async (t) => {
  const small = state([filter([['one', true], ['two', true]])]);
  const big = state([filter([['a1', true], ['a2', true], ['a3', true]])]);
  const shared = new SharedKeywords(() => [small, big], 4);
  t.strictSame(plain(shared.match(big, 'a2 and a3', 0), big.filters), { [big.filters[0]?.id ?? '']: ['a2', 'a3'] });
  t.equal(big.ownScans, 1, 'left out: its own automaton');
  shared.match(small, 'two', 0);
  t.equal(small.ownScans, 0, 'the small one is in the shared automaton');
});
