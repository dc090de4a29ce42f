// GET /health, for load balancers and orchestrators: "OK" (text/plain, 200) when the store
// and the job queue (Redis, when the instance runs its queue there) answer a read, 503 when one
// fails or takes longer than a few seconds, as Mastodon's health check answers for its database
// and Redis.

import type { AppCore } from '../context.ts';
import type { Endpoint } from '../endpoint/types.ts';

const TIMEOUT_MS = 5000;

async function dependenciesAnswer(core: AppCore): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((done) => (timer = setTimeout(() => done(false), TIMEOUT_MS)));
  try {
    const reads = Promise.all([core.storage.accounts.get('1'), core.queue.deadLetters(1)]).then(() => true);
    return await Promise.race([reads, late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function healthEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/health',
      auth: 'public',
      scopes: [],
      // A load balancer asks without a token, whatever mode the instance runs in.
      openInLimitedMode: true,
      handle: async () => {
        const ok = await dependenciesAnswer(core);
        return { status: ok ? 200 : 503, type: 'text', body: ok ? 'OK' : 'Service Unavailable', headers: { 'cache-control': 'no-store' } };
      },
    },
  ];
}
