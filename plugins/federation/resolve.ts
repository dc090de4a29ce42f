// Looking remote accounts and statuses up: a handle (user@domain) through WebFinger, a URL
// through its ActivityStreams document, both stored through the core's federation API, a
// status whole (mentions, hashtags, emojis, media, poll), as a delivery stores it.
// Fedify's WebFinger client always asks over https; when private addresses are allowed
// (tests on loopback), a handle whose host is such an address is asked over plain http.

import type { Account, PluginHost, Status } from 'rookery/plugin-kit';
import type { Context } from '@fedify/fedify';
import { isActor, Note, Question, type Actor } from '@fedify/fedify/vocab';
import { rememberInbox } from './federation.ts';
import { actorInput, keepActorEmojis, keepStatusParts } from './incoming.ts';
import { isPublicAudience, statusInputOf } from './status-input.ts';
import type { EmojiRepository } from './remote-emoji.ts';
import type { RemoteApi } from './remote-api.ts';

const HANDLE = /^@?([^@\s]{1,64})@([^@\s/?#]{1,255})$/;
const WEBFINGER_TIMEOUT_MS = 10_000;
const WEBFINGER_MAX_BYTES = 64 * 1024;

function isLoopbackOrPrivateHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || /^127\./.test(name) || name === '::1' || /^10\./.test(name) || /^192\.168\./.test(name) || /^172\.(1[6-9]|2\d|3[01])\./.test(name);
}

/** The actor URL a handle's WebFinger document names, asked over plain http. */
async function plainWebFinger(user: string, host: string): Promise<string | null> {
  const url = `http://${host}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${user}@${host}`)}`;
  const response = await fetch(url, { headers: { accept: 'application/jrd+json' }, redirect: 'error', signal: AbortSignal.timeout(WEBFINGER_TIMEOUT_MS) }).catch(() => null);
  if (response === null || !response.ok) return null;
  const text = await response.text();
  if (text.length > WEBFINGER_MAX_BYTES) return null;
  try {
    const jrd = JSON.parse(text) as { links?: { rel?: unknown; type?: unknown; href?: unknown }[] };
    const self = jrd.links?.find((link) => link.rel === 'self' && typeof link.href === 'string' && /activity\+json|ld\+json/.test(String(link.type ?? '')));
    return typeof self?.href === 'string' ? self.href : null;
  } catch {
    return null;
  }
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
): Resolver {
  async function store(actor: Actor): Promise<Account | null> {
    const input = await actorInput(actor);
    if (input === null) return null;
    await rememberInbox(kv, actor);
    await keepActorEmojis(emojis, actor, input);
    return api.upsertRemoteAccount(input);
  }

  async function actorOfUrl(ctx: Context<PluginHost>, url: string): Promise<{ actor: Actor; account: Account } | null> {
    const object = await ctx.lookupObject(url).catch(() => null);
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
      const ctx = context();
      const found = await ctx.lookupObject(`acct:${user}@${host}`).catch(() => null);
      if (found !== null && isActor(found)) return store(found);
      if (!allowPrivateAddress || !isLoopbackOrPrivateHost(host)) return null;
      const self = await plainWebFinger(user, host);
      return self === null ? null : accountOfUrl(ctx, self);
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
      const object = await ctx.lookupObject(parsed.href).catch(() => null);
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
      const status = await api.receiveRemoteStatus(input);
      return status === null ? null : { status };
    },
  };
}
