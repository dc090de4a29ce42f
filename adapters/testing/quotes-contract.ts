// The storage contract of quotes and quote policies (core/domain/ports/storage.ts,
// QuoteRepository), run by storageContract on every adapter.

import { POST, T0, status } from './fixtures.ts';
import type { Id, Quote, Status } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import type { It, SectionWorld as World, Shared } from './section.ts';

const idsOf = (items: readonly { id: Id }[]): Id[] => items.map((i) => i.id);

function quoteOf(w: World, statusId: Id, accountId: Id, quoted: Status, o: Partial<Quote> = {}): Quote {
  return {
    id: w.id(),
    statusId,
    accountId,
    quotedStatusId: quoted.id,
    quotedAccountId: quoted.accountId,
    state: 'accepted',
    authorizationUri: null,
    requestUri: null,
    createdAt: T0,
    updatedAt: T0,
    ...o,
  };
}

export function quotesContract(it: It, shared: Shared): void {
  it('quotes: attached with a status, read back, listed and counted by state', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const quoted = await w.post(alice.id);
    const id = w.id();
    const quote = quoteOf(w, id, bob.id, quoted, { state: 'pending', requestUri: 'https://remote.example/requests/1' });
    await w.s.statuses.create(status(id, bob.id), POST, { writes: [w.s.quotes.attach({ quote, policy: { statusId: id, policy: 'followers' } })] });
    t.strictSame(await w.s.quotes.ofStatuses([id, quoted.id, 'nope']), new Map([[id, quote]]), 'the quote, by quoting status');
    t.strictSame(await w.s.quotes.policies([id, quoted.id]), new Map([[id, 'followers']]), 'the policy, by status');
    t.strictSame(await w.s.quotes.findByUri('https://remote.example/requests/1'), quote, 'found by its request');
    t.equal(await w.s.quotes.findByUri('https://remote.example/requests/2'), null, 'an unknown uri');
    t.strictSame(await w.s.quotes.quotesOf(quoted.id, ['accepted'], { limit: 10 }), [], 'not accepted yet');
    t.strictSame(await w.s.quotes.count([quoted.id], ['accepted']), new Map(), 'nothing counted');

    const accepted = await w.s.quotes.transition(id, ['pending'], 'accepted', T0 + 5, { authorizationUri: 'https://example.test/authorizations/1' });
    t.strictSame(accepted, { ...quote, state: 'accepted', updatedAt: T0 + 5, authorizationUri: 'https://example.test/authorizations/1' }, 'accepted with its stamp');
    t.equal(await w.s.quotes.transition(id, ['pending'], 'rejected', T0 + 6), null, 'a transition from another state does nothing');
    t.strictSame(await w.s.quotes.findByUri('https://example.test/authorizations/1'), accepted, 'found by its authorization');
    t.equal(await w.s.quotes.transition(w.id(), ['pending'], 'accepted', T0), null, 'no quote');
    t.equal(await w.s.quotes.transition('nope', ['pending'], 'accepted', T0), null, 'not an id');

    const others: Quote[] = [];
    for (let i = 0; i < 3; i++) {
      const q = quoteOf(w, w.id(), bob.id, quoted, { state: i === 1 ? 'rejected' : 'accepted' });
      await w.s.quotes.save(q);
      others.push(q);
    }
    const [q1, q2, q3] = others as [Quote, Quote, Quote];
    t.strictSame(idsOf(await w.s.quotes.quotesOf(quoted.id, ['accepted'], { limit: 10 })), [q3.id, q1.id, quote.id], 'accepted ones, newest first');
    t.strictSame(idsOf(await w.s.quotes.quotesOf(quoted.id, ['accepted'], { limit: 1, maxId: q3.id })), [q1.id], 'maxId');
    t.strictSame(idsOf(await w.s.quotes.quotesOf(quoted.id, ['accepted'], { limit: 1, minId: quote.id })), [q1.id], 'minId');
    t.strictSame(idsOf(await w.s.quotes.quotesOf(quoted.id, ['rejected', 'pending'], { limit: 10 })), [q2.id], 'by state');
    t.strictSame(await w.s.quotes.quotesOf('nope', ['accepted'], { limit: 10 }), [], 'not an id');
    t.strictSame(await w.s.quotes.count([quoted.id, bob.id], ['accepted']), new Map([[quoted.id, 3]]), 'counted');
    const summary = await w.s.quotes.summary([quoted.id, id, q2.statusId, 'nope'], ['accepted']);
    t.strictSame(summary.quotes, new Map([[id, accepted], [q2.statusId, q2]]), 'summary: the quotes of those statuses');
    t.strictSame(summary.policies, new Map([[id, 'followers']]), 'summary: their policies');
    t.strictSame(summary.counts, new Map([[quoted.id, 3]]), 'summary: their counts');
    t.strictSame(await w.s.quotes.summary([], ['accepted']), { quotes: new Map(), policies: new Map(), counts: new Map() }, 'summary of nothing');

    const replaced = { ...quote, id: w.id(), state: 'revoked' as const, authorizationUri: null };
    await w.s.quotes.save(replaced);
    t.strictSame((await w.s.quotes.ofStatuses([id])).get(id), replaced, 'save replaces the status\'s quote');
    await w.s.quotes.setPolicy(id, 'nobody');
    t.strictSame(await w.s.quotes.policies([id]), new Map([[id, 'nobody']]), 'setPolicy replaces');
  });

  it('quotes: a status whose write fails leaves no quote behind', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const quoted = await w.post(alice.id);
    const id = w.id();
    const failing = { ...w.s.quotes.attach({}), check: () => { throw new Error('refused'); } };
    const quote = quoteOf(w, id, bob.id, quoted);
    let failed = false;
    try {
      await w.s.statuses.create(status(id, bob.id), POST, { writes: [w.s.quotes.attach({ quote, policy: { statusId: id, policy: 'public' } }), failing] });
    } catch {
      failed = true;
    }
    t.equal(failed, true, 'the write failed');
    t.strictSame(await w.s.quotes.ofStatuses([id]), new Map(), 'no quote');
    t.strictSame(await w.s.quotes.policies([id]), new Map(), 'no policy');
  });

  it('quotes: an edit replaces or removes the quote, committed with it (or not at all)', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const [first, second] = [await w.post(alice.id), await w.post(alice.id)];
    const id = w.id();
    const quoting = status(id, bob.id);
    await w.s.statuses.create(quoting, POST, { writes: [w.s.quotes.attach({ quote: quoteOf(w, id, bob.id, first) })] });
    const { content, spoilerText, sensitive, language, mentionIds, tags, mediaIds, pollId } = quoting;
    const edit = (writes: ReturnType<Storage['quotes']['attach']>[], text: string) =>
      w.s.statuses.update(id, { text, content, spoilerText, sensitive, language, mentionIds, tags, mediaIds, pollId, editedAt: T0 + 10 }, [], { writes });

    const after = quoteOf(w, id, bob.id, second, { state: 'pending', createdAt: T0 + 10, updatedAt: T0 + 10 });
    t.equal((await edit([w.s.quotes.attach({ removeQuoteOf: id, quote: after })], 'now quoting the second'))?.text, 'now quoting the second', 'edited');
    t.strictSame(await w.s.quotes.ofStatuses([id]), new Map([[id, after]]), 'the new quote replaced the old one');
    t.strictSame(await w.s.quotes.count([first.id, second.id], ['accepted', 'pending']), new Map([[second.id, 1]]), 'the first is no longer quoted');
    t.strictSame(await w.s.quotes.quotesOf(first.id, ['accepted'], { limit: 10 }), [], 'nor listed');

    const failing = { ...w.s.quotes.attach({}), check: () => { throw new Error('refused'); } };
    let failed = false;
    try {
      await edit([w.s.quotes.attach({ removeQuoteOf: id }), failing], 'refused');
    } catch {
      failed = true;
    }
    t.equal(failed, true, 'the edit failed');
    t.strictSame(await w.s.quotes.ofStatuses([id]), new Map([[id, after]]), 'the quote stays');
    t.equal((await w.s.statuses.get(id))?.text, 'now quoting the second', 'and the text');

    await edit([w.s.quotes.attach({ removeQuoteOf: id })], 'quoting nothing');
    t.strictSame(await w.s.quotes.ofStatuses([id]), new Map(), 'removed');
    t.strictSame(await w.s.quotes.count([first.id, second.id], ['accepted', 'pending']), new Map(), 'nothing counted');
    await edit([w.s.quotes.attach({ removeQuoteOf: id })], 'still nothing');
    t.strictSame(await w.s.quotes.ofStatuses([id]), new Map(), 'removing no quote does nothing');
  });

  shared('quotes: a summary read again shows every change since, made here or elsewhere', async (t, w, other) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const quoted = await w.post(alice.id);
    const quoting = await w.post(bob.id);
    const ids = [quoted.id, quoting.id];
    const read = () => w.s.quotes.summary(ids, ['accepted']);
    t.strictSame(await read(), { quotes: new Map(), policies: new Map(), counts: new Map() }, 'nothing yet');
    const quote = quoteOf(w, quoting.id, bob.id, quoted, { state: 'pending' });
    await w.s.quotes.save(quote);
    t.strictSame((await read()).quotes, new Map([[quoting.id, quote]]), 'a quote saved here');
    const moved = await other.quotes.transition(quoting.id, ['pending'], 'accepted', T0 + 1);
    const after = await read();
    t.strictSame([after.quotes, after.counts], [new Map([[quoting.id, moved]]), new Map([[quoted.id, 1]])], 'a transition on another connection');
    await other.quotes.setPolicy(quoted.id, 'followers');
    t.strictSame((await read()).policies, new Map([[quoted.id, 'followers']]), 'a policy set on another connection');
    await w.s.quotes.setPolicy(quoted.id, 'nobody');
    t.strictSame((await read()).policies, new Map([[quoted.id, 'nobody']]), 'a policy set here');
    const kept = await read();
    kept.quotes.clear();
    kept.counts.set(quoted.id, 99);
    t.strictSame((await read()).counts, new Map([[quoted.id, 1]]), 'changing what a read returned changes no later read');
  });

  shared('quotes: one transition wins a race', async (t, w, other) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const quoted = await w.post(alice.id);
    const quote = quoteOf(w, w.id(), bob.id, quoted, { state: 'pending' });
    await w.s.quotes.save(quote);
    const results = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? w.s : other).quotes.transition(quote.statusId, ['pending'], i < 2 ? 'accepted' : 'rejected', T0 + i)));
    t.equal(results.filter((r) => r !== null).length, 1, 'one moved it');
  });
}
