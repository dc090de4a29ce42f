// uWebSockets.js is a native addon: it either loads or the streaming server does not start.
// There is deliberately no fallback to another transport; the error says what the machine needs.

import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type UwsModule = typeof Uws;

export const UWS_REQUIREMENT =
  'It needs Node 24 on Linux with glibc 2.38 or newer (Debian 13, Ubuntu 24.04; not Alpine/musl), macOS or Windows, ' +
  'and the package installed as "uWebSockets.js": npm install uWebSockets.js@npm:@btc-vision/uwebsockets.js@20.57.0. ' +
  'On an older glibc (Debian 12) a development checkout can patch the addon: npm run uws:compat (needs gcc and patchelf).';

let loaded: UwsModule | null = null;

/** Loads uWebSockets.js, or throws an Error that says why and what is needed. `load` is the
 * module loader (tests pass one that fails). */
export function loadUws(load?: (id: string) => unknown): UwsModule {
  if (load === undefined && loaded !== null) return loaded;
  let uws: UwsModule;
  try {
    uws = (load ?? createRequire(import.meta.url))('uWebSockets.js') as UwsModule;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`The streaming server cannot start: uWebSockets.js does not load here.\n${reason}\n${UWS_REQUIREMENT}`, { cause: err });
  }
  if (typeof uws.App !== 'function') throw new Error(`The streaming server cannot start: "uWebSockets.js" is not uWebSockets.js (it has no App).\n${UWS_REQUIREMENT}`);
  if (load === undefined) loaded = uws;
  return uws;
}
