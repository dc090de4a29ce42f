// Every document Fedify fetches (a sender's key while an inbox request waits, an actor, a note)
// gets a time limit. Fedify 2.3.6 sets none, so a server that accepts the connection and never
// answers held the fetch, and the inbox request or job behind it, for as long as the socket
// allowed (minutes). Its loaders take an AbortSignal, and its Federation object makes them
// through three factories; each loader those make is wrapped to pass a signal that ends the
// fetch after `ms`. The factories are public fields of that object but not in its typed API,
// so a Fedify upgrade that renames them fails here, at startup, rather than going unbounded.

import type { Federation } from '@fedify/fedify';

/** Mastodon waits about this long for a remote server's answer. */
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;

type Loader = (url: string, options?: { signal?: AbortSignal }) => Promise<unknown>;
type LoaderFactory = (...args: unknown[]) => Loader;

const FACTORIES = ['documentLoaderFactory', 'contextLoaderFactory', 'authenticatedDocumentLoaderFactory'] as const;

function bounded(load: Loader, ms: number): Loader {
  return (url, options) => {
    const timeout = AbortSignal.timeout(ms);
    const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return load(url, { ...options, signal });
  };
}

export function limitFetchTime<T>(federation: Federation<T>, ms: number): void {
  const factories = federation as unknown as Record<(typeof FACTORIES)[number], LoaderFactory | undefined>;
  for (const name of FACTORIES) {
    const make = factories[name];
    if (typeof make !== 'function') throw new Error(`federation: this Fedify has no ${name}; fetch time limits cannot be set`);
    factories[name] = (...args) => bounded(make(...args), ms);
  }
}
