// Looking remote accounts and statuses up: a handle (user@domain) through WebFinger, a URL
// through its ActivityStreams document, both stored through the core's federation API, a
// status whole (mentions, hashtags, emojis, media, poll), as a delivery stores it. Both go
// through the instance's fetcher (documents.ts): WebFinger asks over https only, as Mastodon
// and Fedify do; when private addresses are allowed (tests on loopback), a handle whose host is
// such an address is asked over plain http too.

import type { Account, PluginHost, Status } from 'rookery/plugin-kit';
import type { Fetcher } from 'rookery/node';
import type { Context } from '@fedify/fedify';
import { isActor, Note, Question, type Actor } from '@fedify/fedify/vocab';
import { lookupUrl } from './documents.ts';
import { rememberInbox } from './federation.ts';
import { actorInput, keepActorEmojis, keepStatusParts } from './incoming.ts';
import { isPublicAudience, statusInputOf } from './status-input.ts';
import { noteQuoteInput, storedStatusId } from './quote-objects.ts';
import type { EmojiRepository } from './remote-emoji.ts';
import type { RemoteApi } from './remote-api.ts';

const HANDLE = /^@?([^@\s]{1,64})@([^@\s/?#]{1,255})$/;
const WEBFINGER_MAX_BYTES = 64 * 1024;
const ACTIVITY_STREAMS = /^application\/(activity\+json|ld\+json;\s*profile="https:\/\/www\.w3\.org\/ns\/activitystreams")$/;

function isLoopbackOrPrivateHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || /^127\./.test(name) || name === '::1' || /^10\./.test(name) || /^192\.168\./.test(name) || /^172\.(1[6-9]|2\d|3[01])\./.test(name);
}

/** The actor URL a handle's WebFinger document names, or null. */
async function webFinger(fetcher: Fetcher, user: string, host: string, plainHttpToo: boolean): Promise<string | null> {
  for (const scheme of plainHttpToo ? ['https', 'http'] : ['https']) {
    const url = `${scheme}://${host}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${user}@${host}`)}`;
    const answer = await fetcher.fetch(url, { headers: { accept: 'application/jrd+json' }, maxBytes: WEBFINGER_MAX_BYTES, httpsOnly: scheme === 'https' }).catch(() => null);
    if (answer === null || answer.status !== 200) continue;
    try {
      const jrd = JSON.parse(answer.body.toString('utf8')) as { links?: { rel?: unknown; type?: unknown; href?: unknown }[] };
      const self = (Array.isArray(jrd.links) ? jrd.links : []).find((link) => link?.rel === 'self' && typeof link.href === 'string' && ACTIVITY_STREAMS.test(String(link.type ?? '')));
      if (typeof self?.href === 'string') return self.href;
    } catch {
      // Not a JRD: nothing found here.
    }
  }
  return null;
}

export interface Resolver {
  account(handle: string): Promise<Account | null>;
  url(url: string): Promise<{ account: Account } | { status: Status } | null>;
}

export function resolver(
  host: PluginHost,
  context: () => Context<PluginHost>,
  api: RemoteApi,
  kv: Parameters<typeof rememberInbox>[0],
  allowPrivateAddress: boolean,
  emojis: EmojiRepository,
  fetcher: Fetcher,
): Resolver {
  async function store(actor: Actor): Promise<Account | null> {
    const input = await actorInput(actor);
    if (input === null) return null;
    await rememberInbox(kv, actor);
    await keepActorEmojis(emojis, actor, input);
    return api.upsertRemoteAccount(input);
  }

  async function actorOfUrl(ctx: Context<PluginHost>, url: string): Promise<{ actor: Actor; account: Account } | null> {
    const object = await lookupUrl(ctx, url);
    if (object === null || !isActor(object)) return null;
    const account = await store(object);
    return account === null ? null : { actor: object, account };
  }

  async function accountOfUrl(ctx: Context<PluginHost>, url: string): Promise<Account | null> {
    return (await actorOfUrl(ctx, url))?.account ?? null;
  }

  return {
    async account(handle) {
      const match = HANDLE.exec(handle.trim());
      if (match === null) return null;
      const [, user = '', host = ''] = match;
      const self = await webFinger(fetcher, user, host, allowPrivateAddress && isLoopbackOrPrivateHost(host));
      return self === null ? null : accountOfUrl(context(), self);
    },
    async url(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return null;
      }
      if (parsed.protocol !== 'https:' && !(allowPrivateAddress && parsed.protocol === 'http:')) return null;
      const ctx = context();
      const object = await lookupUrl(ctx, parsed.href);
      if (object === null) return null;
      if (isActor(object)) {
        const account = await store(object);
        return account === null ? null : { account };
      }
      if (!(object instanceof Note || object instanceof Question) || object.id === null) return null;
      const authorId = object.attributionId;
      // Only a status from its author's own server, and only one everybody may read.
      if (authorId === null || authorId.origin !== object.id.origin) return null;
      if (!isPublicAudience(object.toIds) && !isPublicAudience(object.ccIds)) return null;
      const author = await actorOfUrl(ctx, authorId.href);
      if (author === null) return null;
      const input = await statusInputOf(host, object, author.account, author.actor);
      if (input === null) return null;
      await keepStatusParts(host, { kv, emojis }, object, input.uri);
      const status = await api.receiveRemoteStatus({ ...input, ...(await noteQuoteInput(host, object, author.actor, (uri) => storedStatusId(host, uri))) });
      return status === null ? null : { status };
    },
  };
}
