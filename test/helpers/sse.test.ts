// openSse's waits: a wait for an event still to come must survive every chunk that arrives before
// it (a heartbeat, an unrelated event, half an event). It once heard only the very next chunk,
// and the cross-server test lost a delete that came one chunk later.

import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { openSse } from './sse.ts';

t.test('a wait outlives the chunks that come before its event', { timeout: 20_000 }, async (t) => {
  const responses: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    responses.push(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sse = await openSse(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  t.teardown(() => {
    sse.close();
    for (const res of responses) res.destroy();
    server.close();
  });
  const out = responses[0];
  if (out === undefined) throw new Error('the server saw no request');

  const wanted = sse.next((e) => e.event === 'delete' && e.data === '42');
  const lastComment = sse.comment('last');
  out.write(':thump\n\n');
  await sse.comment('thump');
  out.write('event: update\ndata: {}\n\n');
  await sse.next((e) => e.event === 'update');
  out.write(':half\nevent: delete\n');
  await sse.comment('half');
  out.write('data: 42\n\n');
  t.same(await wanted, { event: 'delete', data: '42' }, 'after a heartbeat, another event and half of itself');
  out.write(':last\n\n');
  await lastComment;
  t.pass('a wait for a comment outlives the chunks before it too');
});
