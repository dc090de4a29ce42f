// Quote posts between two instances over loopback (FEP-044f, as Mastodon 4.5): bob on A quotes
// alice's status on B; A asks with a QuoteRequest, B stores bob's status, accepts by alice's
// policy (the Accept's result a stamp B serves) and tells alice; the quote turns accepted on A.
// A's Note names the quote in every form servers read; B's Note states its policy, which A
// applies to its own users. alice revokes: B deletes the stamp and the quote is revoked on A.
// A status whose policy refuses is refused by B too when A's user quotes it anyway.

import t, { type Test } from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { followAcross } from '../../helpers/federation.ts';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';

const AP = 'application/activity+json';

interface StatusJson {
  id: string;
  uri: string;
  quote: { state: string; quoted_status?: { id: string } | null } | null;
  quote_approval: { automatic: string[]; manual: string[]; current_user: string };
}

/** Two federating instances, A and B, closed when the test ends; `drain` runs both queues
 * until what each sent the other has been handled. */
async function twoServers(t: Test): Promise<{ a: Harness; b: Harness; drain(): Promise<void> }> {
  const instance = () => harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  const a = await instance();
  const b = await instance();
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const drain = async () => {
    for (const h of [a, b, a, b]) await h.rookery.drain();
  };
  return { a, b, drain };
}

t.test('a quote across servers: requested, accepted, notified, revoked', async (t) => {
  const { a, b, drain } = await twoServers(t);
  const bob: TestUser = await a.user('bob');
  const alice: TestUser = await b.user('alice');
  const carol: TestUser = await b.user('carol');

  const original = (await b.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quote me if you like' } })).json as StatusJson;
  const guarded = (await b.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'but not this', quote_approval_policy: 'nobody' } })).json as StatusJson;
  const find = async (uri: string): Promise<StatusJson> => {
    const found = await a.request('GET', `/api/v2/search?q=${encodeURIComponent(uri)}&resolve=true&type=statuses`, { token: bob.token });
    const status = (found.json as { statuses: StatusJson[] }).statuses[0];
    if (status === undefined) throw new Error(`${uri} not found on A`);
    return status;
  };
  const copy = await find(original.uri);
  t.strictSame(copy.quote_approval, { automatic: ['public'], manual: [], current_user: 'automatic' }, "A reads B's canQuote: public");
  const guardedCopy = await find(guarded.uri);
  t.strictSame(guardedCopy.quote_approval, { automatic: [], manual: [], current_user: 'denied' }, "A reads B's canQuote: the author alone");
  const refused = await a.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'no', quoted_status_id: guardedCopy.id } });
  t.equal(refused.statusCode, 404, 'A applies the policy B states');

  const quoting = await a.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'well said', quoted_status_id: copy.id } });
  t.equal(quoting.statusCode, 200);
  const posted = quoting.json as StatusJson;
  t.strictSame(posted.quote, { state: 'pending', quoted_status: null }, 'pending until B answers');

  const onA = async (): Promise<StatusJson> => {
    await drain();
    return (await a.request('GET', `/api/v1/statuses/${posted.id}`, { token: bob.token })).json as StatusJson;
  };
  const accepted = await eventually(onA, (s) => s.quote?.state === 'accepted', 'B accepts the quote');
  t.equal(accepted.quote?.quoted_status?.id, copy.id, 'A shows the quoted status');

  // B has bob's status, its quote accepted, listed, and alice was told.
  const quotesOnB = (await b.request('GET', `/api/v1/statuses/${original.id}/quotes`, { token: alice.token })).json as StatusJson[];
  t.equal(quotesOnB.length, 1, "bob's quote is listed on B");
  t.equal(quotesOnB[0]?.uri, posted.uri);
  t.equal(quotesOnB[0]?.quote?.quoted_status?.id, original.id);
  const notes = (await b.request('GET', '/api/v1/notifications?types[]=quote', { token: alice.token })).json as { type: string; status: { uri: string } }[];
  t.equal(notes.length, 1, 'alice is told');
  t.equal(notes[0]?.status.uri, posted.uri);

  // A's Note: the quote in every form, and the stamp B serves for it.
  const note = await a.request('GET', new URL(posted.uri).pathname, { headers: { accept: AP } });
  t.equal(note.statusCode, 200);
  t.equal(note.json.quote, original.uri, 'quote');
  t.equal(note.json.quoteUrl, original.uri, 'quoteUrl');
  t.equal(note.json._misskey_quote, original.uri, '_misskey_quote');
  t.type(note.json.quoteAuthorization, 'string', 'quoteAuthorization');
  t.match(note.json.interactionPolicy, { canQuote: { automaticApproval: 'as:Public' } }, 'its own policy: the public collection, compacted');
  const stampUrl = new URL(note.json.quoteAuthorization as string);
  t.equal(stampUrl.origin, new URL(b.core.config.baseUrl).origin, "the stamp is B's");
  const stamp = await b.request('GET', stampUrl.pathname, { headers: { accept: AP } });
  t.equal(stamp.statusCode, 200);
  t.equal(stamp.json.type, 'QuoteAuthorization');
  t.equal(stamp.json.interactingObject, posted.uri);
  t.equal(stamp.json.interactionTarget, original.uri);

  // The other way: carol on B quotes bob's status (B has it, with the policy A's Note states).
  const bobsOnB = quotesOnB[0] as StatusJson;
  t.strictSame(bobsOnB.quote_approval.automatic, ['public'], "B reads A's canQuote");
  const nested = await b.request('POST', '/api/v1/statuses', { token: carol.token, payload: { status: 'meta', quoted_status_id: bobsOnB.id } });
  t.equal(nested.statusCode, 200);
  t.equal((nested.json as StatusJson).quote?.state, 'pending', 'pending until A answers');
  const onB = async (): Promise<StatusJson> => {
    await drain();
    return (await b.request('GET', `/api/v1/statuses/${(nested.json as StatusJson).id}`, { token: carol.token })).json as StatusJson;
  };
  t.equal((await eventually(onB, (s) => s.quote?.state === 'accepted', 'A accepts carol\'s quote')).quote?.quoted_status?.id, bobsOnB.id);
  const bobNotes = (await a.request('GET', '/api/v1/notifications?types[]=quote', { token: bob.token })).json as { account: { acct: string } }[];
  t.equal(bobNotes[0]?.account.acct, `carol@${new URL(b.core.config.baseUrl).host}`, 'bob is told on A');

  // alice revokes: the stamp goes, the quote is revoked on both servers.
  const revoked = await b.request('POST', `/api/v1/statuses/${original.id}/quotes/${bobsOnB.id}/revoke`, { token: alice.token });
  t.equal(revoked.statusCode, 200);
  t.equal((revoked.json as StatusJson).quote?.state, 'revoked');
  const after = await eventually(onA, (s) => s.quote?.state === 'revoked', 'A learns of the revocation');
  t.strictSame(after.quote, { state: 'revoked', quoted_status: null });
  t.equal((await b.request('GET', stampUrl.pathname, { headers: { accept: AP } })).statusCode, 404, 'the stamp is gone');

  // alice closes her status to quotes: A, where she has a follower now, learns the new policy
  // (an Update, not an edit).
  await followAcross(a, [bob], b, 'alice');
  const closed = await b.request('PUT', `/api/v1/statuses/${original.id}/interaction_policy`, { token: alice.token, payload: { quote_approval_policy: 'nobody' } });
  t.strictSame((closed.json as StatusJson).quote_approval.automatic, []);
  const copyNow = async (): Promise<StatusJson & { edited_at: string | null }> => {
    await drain();
    return (await a.request('GET', `/api/v1/statuses/${copy.id}`, { token: bob.token })).json as StatusJson & { edited_at: string | null };
  };
  const updated = await eventually(copyNow, (s) => s.quote_approval.automatic.length === 0, 'A learns the new policy');
  t.equal(updated.quote_approval.current_user, 'denied');
  t.equal(updated.edited_at, null, 'not an edit');
});

// quoted_status_id on edit (issue 20): bob on A, followed by alice on B, edits a status to quote
// alice's status on B: the Update carries the quote, A asks B with a QuoteRequest as on publish,
// B accepts and tells alice; an edit removing the quote takes it off B's copy and list.
t.test("an edit's Update carries the new quote, or none, to the other server", async (t) => {
  const { a, b, drain } = await twoServers(t);
  const bob: TestUser = await a.user('bob');
  const alice: TestUser = await b.user('alice');
  await followAcross(b, [alice], a, 'bob');

  const original = (await b.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quote me later' } })).json as StatusJson;
  const found = await a.request('GET', `/api/v2/search?q=${encodeURIComponent(original.uri)}&resolve=true&type=statuses`, { token: bob.token });
  const copy = (found.json as { statuses: StatusJson[] }).statuses[0] as StatusJson;
  const plain = (await a.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'nothing quoted yet' } })).json as StatusJson;
  const onB = async (): Promise<(StatusJson & { content: string }) | null> => {
    await drain();
    const home = (await b.request('GET', '/api/v1/timelines/home', { token: alice.token })).json as (StatusJson & { content: string })[];
    return home.find((s) => s.uri === plain.uri) ?? null;
  };
  t.strictSame((await eventually(onB, (s) => s !== null, "B has bob's status"))?.quote, null, 'quoting nothing');

  const edited = await a.request('PUT', `/api/v1/statuses/${plain.id}`, { token: bob.token, payload: { status: 'now quoting alice', quoted_status_id: copy.id } });
  t.equal(edited.statusCode, 200);
  t.strictSame((edited.json as StatusJson).quote, { state: 'pending', quoted_status: null }, 'pending until B answers');
  const onA = async (): Promise<StatusJson> => {
    await drain();
    return (await a.request('GET', `/api/v1/statuses/${plain.id}`, { token: bob.token })).json as StatusJson;
  };
  const accepted = await eventually(onA, (s) => s.quote?.state === 'accepted', "B accepts the edit's QuoteRequest");
  t.equal(accepted.quote?.quoted_status?.id, copy.id);

  const quotedOnB = await eventually(onB, (s) => s?.quote?.state === 'accepted', 'the Update brings the quote to B');
  t.equal(quotedOnB?.content, '<p>now quoting alice</p>', 'with the edit');
  t.equal(quotedOnB?.quote?.quoted_status?.id, original.id, "alice's status, quoted");
  const listed = (await b.request('GET', `/api/v1/statuses/${original.id}/quotes`, { token: alice.token })).json as StatusJson[];
  t.strictSame(listed.map((s) => s.uri), [plain.uri], "listed among alice's quotes");
  const notes = (await b.request('GET', '/api/v1/notifications?types[]=quote', { token: alice.token })).json as { status: { uri: string } }[];
  t.strictSame(notes.map((n) => n.status.uri), [plain.uri], 'alice is told');

  const removed = await a.request('PUT', `/api/v1/statuses/${plain.id}`, { token: bob.token, payload: { status: 'quoting nothing again', quoted_status_id: null } });
  t.strictSame((removed.json as StatusJson).quote, null, 'removed on A');
  const bare = await eventually(onB, (s) => s?.quote === null && s.content === '<p>quoting nothing again</p>', 'the Update takes the quote off B');
  t.strictSame(bare?.quote, null);
  t.strictSame((await b.request('GET', `/api/v1/statuses/${original.id}/quotes`, { token: alice.token })).json, [], 'no longer listed on B');
  t.equal(((await b.request('GET', `/api/v1/statuses/${original.id}`, { token: alice.token })).json as { quotes_count: number }).quotes_count, 0, 'nor counted');
});
