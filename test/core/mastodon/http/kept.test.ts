// KeptAnswers (core/mastodon/http/kept.ts): served only at the stamp it was made at and before
// its time runs out, bounded in count and in bytes, and never changed by what a caller does to
// the response it was given.

import t from 'tap';
import { KEPT_ANSWER_MAX_BYTES, KEPT_ANSWERS, KEPT_BYTES, KeptAnswers } from '../../../../core/mastodon/http/kept.ts';

const answer = (body: string) => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
const text = (body: string | Uint8Array | undefined) => (body === undefined ? undefined : typeof body === 'string' ? body : new TextDecoder().decode(body));

t.test('served at its stamp and before its time only', async (t) => {
  const kept = new KeptAnswers();
  const given = kept.keep('/a', 7, 1_000, answer('{"a":1}'));
  t.equal(text(given.body), '{"a":1}', 'what is sent now is what is kept');
  t.equal(text(kept.get('/a', 7, 999)?.body), '{"a":1}');
  t.equal(kept.get('/a', 7, 1_000), undefined, 'at its time it is gone');
  t.equal(kept.size, 0, 'and dropped');
  kept.keep('/a', 7, Infinity, answer('{"a":2}'));
  t.equal(kept.get('/a', 8, 0), undefined, 'another stamp: not served');
  t.equal(kept.get('/a', 7, 0), undefined, 'nor afterwards: it was dropped');
});

t.test('a caller changing its response changes nothing kept', async (t) => {
  const kept = new KeptAnswers();
  const given = kept.keep('/a', 's', Infinity, answer('{}'));
  given.headers['x-one'] = '1';
  const first = kept.get('/a', 's', 0);
  if (first !== undefined) first.headers['x-two'] = '2';
  t.strictSame(kept.get('/a', 's', 0)?.headers, { 'content-type': 'application/json; charset=utf-8' });
});

t.test('bounded in count, in bytes, and in the size of one answer', async (t) => {
  const kept = new KeptAnswers();
  for (let i = 0; i < KEPT_ANSWERS; i++) kept.keep(`/${i}`, 1, Infinity, answer('{}'));
  t.ok(kept.get('/0', 1, 0), 'full: the first is used again');
  kept.keep('/more', 1, Infinity, answer('{}'));
  t.equal(kept.size, KEPT_ANSWERS - KEPT_ANSWERS / 8 + 1, 'one more: its oldest eighth forgotten at once');
  t.equal(kept.get('/1', 1, 0), undefined, 'the least recently used went first');
  t.ok(kept.get('/0', 1, 0), 'not the one used again');
  t.ok(kept.get('/more', 1, 0), 'and the new one is kept');

  const big = new KeptAnswers();
  const large = 'x'.repeat(KEPT_ANSWER_MAX_BYTES);
  const count = Math.floor(KEPT_BYTES / KEPT_ANSWER_MAX_BYTES);
  for (let i = 0; i <= count; i++) big.keep(`/${i}`, 1, Infinity, answer(large));
  t.equal(big.size, count, 'no more bytes than its bound: the oldest went to make room');
  t.equal(big.get('/0', 1, 0), undefined, 'the oldest');
  const given = big.keep('/huge', 1, Infinity, answer(`${large}x`));
  t.equal(text(given.body)?.length, KEPT_ANSWER_MAX_BYTES + 1, 'a larger answer is sent');
  t.equal(big.get('/huge', 1, 0), undefined, 'but not kept');
});
