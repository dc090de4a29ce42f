// Starting the streaming server fails loudly, never quietly without streaming: when
// uWebSockets.js cannot load (the message says what the machine needs) and when its port is
// taken, by anything, another streaming server included.

import { createServer } from 'node:net';
import t from 'tap';
import { loadUws, startStreamingServer, UWS_REQUIREMENT } from '../../../adapters/uws/index.ts';
import { harness } from '../../helpers/harness.ts';
import { freePort } from '../../helpers/processes.ts';

t.test('uWebSockets.js that cannot load: an error that gives the reason and the requirement', async (t) => {
  const glibc = "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by uws_linux_x64_137.node)";
  const cause = new Error(glibc);
  let thrown: unknown;
  try {
    loadUws(() => {
      throw cause;
    });
  } catch (err) {
    thrown = err;
  }
  t.ok(thrown instanceof Error);
  const error = thrown as Error;
  t.equal(error.message, `The streaming server cannot start: uWebSockets.js does not load here.\n${glibc}\n${UWS_REQUIREMENT}`);
  t.equal(error.cause, cause, 'the loader error is kept as the cause');
  t.match(UWS_REQUIREMENT, /glibc 2\.38 or newer \(Debian 13, Ubuntu 24\.04/);
  t.throws(() => loadUws(() => ({})), { message: /^The streaming server cannot start: "uWebSockets.js" is not uWebSockets.js/ }, 'something else installed under the name');
  t.equal(typeof loadUws().App, 'function', 'and here, the real one loads');
});

t.test('a port already taken: startStreamingServer rejects and serves nothing', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const address = holder.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await t.rejects(startStreamingServer(h.rookery, { port, host: '127.0.0.1' }), { message: `The streaming server could not listen on 127.0.0.1:${port} (is the port in use?)` });
});

t.test('a port another streaming server holds: refused too, never shared', async (t) => {
  // uSockets asks for SO_REUSEPORT on a port it is given, so two servers (of two instances, or
  // of two test runs that picked the same free port) could both listen on it and the kernel
  // would hand each new connection to either: clients of one instance streaming from the other.
  const h = await harness();
  t.teardown(() => h.close());
  const first = await startStreamingServer(h.rookery, { port: await freePort(), host: '127.0.0.1' });
  t.teardown(() => first.close());
  const other = await harness();
  t.teardown(() => other.close());
  await t.rejects(startStreamingServer(other.rookery, { port: first.port, host: '127.0.0.1' }), {
    message: `The streaming server could not listen on 127.0.0.1:${first.port} (is the port in use?)`,
  });
});
