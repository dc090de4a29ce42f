// Who a request comes from (the peer, or the client a trusted proxy names in X-Forwarded-For, as
// the rate limits read it) and whether the admins' no_access IP blocks shut it out: Mastodon's
// Rack::Attack blocklist, which answers 403 "Forbidden" before anything else runs.

import type { RookeryConfig } from '../domain/config.ts';
import type { Core } from '../domain/context.ts';
import { parseCidr, type Cidr, type ParsedIp } from '../domain/ip.ts';
import { anyIpBlocks, ipSeverities } from '../domain/moderation/ip-blocks.ts';
import { clientAddress } from './rate-limits.ts';

const trustedOf = new WeakMap<RookeryConfig, Cidr[]>();

export function clientIp(config: RookeryConfig, remoteAddress: string, forwardedFor: string | undefined): ParsedIp | null {
  let trusted = trustedOf.get(config);
  if (trusted === undefined) {
    trusted = config.trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
    trustedOf.set(config, trusted);
  }
  return clientAddress(remoteAddress, forwardedFor, trusted);
}

/** Whether a no_access block holds the request's client. */
export async function accessRefused(core: Core, remoteAddress: string, forwardedFor: string | undefined): Promise<boolean> {
  if (!(await anyIpBlocks(core))) return false;
  return (await ipSeverities(core, clientIp(core.config, remoteAddress, forwardedFor))).has('no_access');
}
