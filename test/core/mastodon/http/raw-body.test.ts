// Endpoint.rawBody: the body's bytes as they came (an inbox checks a signed digest over them),
// any content type, bounded by payload.maxBytes with a 413 in Mastodon's shape, on the hapi
// plugin and on the node:http handler alike.

import t from 'tap';
import { json, type Endpoint } from '../../../../core/mastodon/endpoint/types.ts';
import type { RookeryPlugin } from '../../../../core/mastodon/host/types.ts';
import { harness } from '../../../helpers/harness.ts';

const LIMIT = 1024;

const echo: RookeryPlugin = {
  name: 'echo',
  register(host) {
    const endpoint: Endpoint = {
      method: 'POST',
      path: '/echo/:name/inbox',
      auth: 'public',
      scopes: [],
      rawBody: true,
      payload: { maxBytes: LIMIT },
      handle: async (request) =>
        json({
          name: request.params['name'],
          search: request.search ?? null,
          body: request.body,
          raw: Buffer.from(request.rawBody ?? new Uint8Array()).toString('latin1'),
          type: request.headers['content-type'] ?? null,
        }),
    };
    host.addEndpoint(endpoint);
  },
};

for (const transport of ['hapi', 'node'] as const) {
  t.test(`raw bodies over ${transport}`, async (t) => {
    const h = await harness({ plugins: [echo], listen: true, transport });
    t.teardown(() => h.close());
    const base = h.core.config.baseUrl;
    const post = (body: string | Uint8Array | null, type: string) => fetch(`${base}/echo/alice/inbox?x=1&y=%20`, { method: 'POST', body, headers: { 'content-type': type } });

    const activity = '{"type":"Follow",  "actor":"x"}';
    let res = await post(activity, 'application/activity+json');
    t.equal(res.status, 200);
    t.same(await res.json(), { name: 'alice', search: 'x=1&y=%20', body: {}, raw: activity, type: 'application/activity+json' });

    // Bytes that no parser of the front would take come through untouched.
    res = await post(new Uint8Array([0xff, 0x00, 0x7b]), 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"');
    t.equal(res.status, 200);
    t.equal(((await res.json()) as { raw: string }).raw, '\xff\x00{');

    res = await post(null, 'application/activity+json');
    t.equal(res.status, 200);
    t.equal(((await res.json()) as { raw: string }).raw, '');

    res = await post('x'.repeat(LIMIT + 1), 'application/activity+json');
    t.equal(res.status, 413);
    t.same(await res.json(), { error: `Payload content length greater than maximum allowed: ${LIMIT}` });

    res = await post('x'.repeat(LIMIT), 'application/activity+json');
    t.equal(res.status, 200);
  });
}
