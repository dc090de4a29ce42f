// Instances that federate in one test process: each a listening harness with the federation
// plugin (loopback allowed), and the steps every cross-server test starts with.

import type { Test } from 'tap';
import { federationPlugin, type FederationPluginOptions } from '../../plugins/index.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import { eventually } from './eventually.ts';
import { harness, type Harness, type TestUser } from './harness.ts';

/** Listening instances (hapi, then node:http, alternately) with `plugins()` and federation
 * (`federation[i]`: more of its options), closed when the test ends. */
export async function federatingInstances(t: Test, count: number, plugins: () => RookeryPlugin[] = () => [], federation: FederationPluginOptions[] = []): Promise<Harness[]> {
  const instances: Harness[] = [];
  t.teardown(async () => {
    for (const h of instances) await h.close();
  });
  for (let i = 0; i < count; i++) {
    instances.push(await harness({ listen: true, transport: i % 2 === 0 ? 'hapi' : 'node', plugins: [...plugins(), federationPlugin({ ...federation[i], allowPrivateAddress: true })] }));
  }
  return instances;
}

/** Runs every queued job of these instances (deliveries, inbox work) until none is left. */
export async function drainAll(instances: readonly Harness[]): Promise<void> {
  for (const h of instances) await h.rookery.drain();
}

/** `followers` on `from` find `username` on `to` by its URL and follow it; resolves once each
 * of them follows it (the Accept came back). The id of that account on `from`. */
export async function followAcross(from: Harness, followers: readonly TestUser[], to: Harness, username: string): Promise<string> {
  const url = `${to.core.config.baseUrl}/users/${username}`;
  const found = await from.request('GET', `/api/v2/search?q=${encodeURIComponent(url)}&resolve=true&type=accounts`, { token: followers[0]?.token ?? null });
  const remote = (found.json as { accounts: { id: string }[] }).accounts[0];
  if (remote === undefined) throw new Error(`${url} not found from ${from.core.config.baseUrl}`);
  for (const follower of followers) {
    const followed = await from.request('POST', `/api/v1/accounts/${remote.id}/follow`, { token: follower.token });
    if (followed.statusCode !== 200) throw new Error(`follow answered ${followed.statusCode}`);
  }
  const following = async (follower: TestUser) => {
    const rels = (await from.request('GET', `/api/v1/accounts/relationships?id[]=${remote.id}`, { token: follower.token })).json as { following: boolean }[];
    return rels[0]?.following === true;
  };
  await eventually(
    async () => {
      await drainAll([from, to]);
      return Promise.all(followers.map(following));
    },
    (states) => states.every(Boolean),
    `${followers.length} follower(s) of ${username} accepted`,
  );
  return remote.id;
}

/** A poll as the API shows it, as far as the cross-server poll tests read it. */
export interface PollJson {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  voted?: boolean;
  own_votes?: number[];
  options: { title: string; votes_count: number | null }[];
}
