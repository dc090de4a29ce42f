// Listening for the standalone instance: a clear message instead of a stack when the port is
// taken or not ours to use, naming the setting that changes it. (The time limits that keep a
// slow or idle client from holding a connection are limitNodeServer's, in adapters/node.)

import type { Server } from 'node:http';

export interface ListenSettings {
  port: number;
  bind: string;
}

export class ListenError extends Error {}

export function listen(server: Server, settings: ListenSettings, variable: string): Promise<void> {
  return new Promise((ready, fail) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const where = `${settings.bind}:${settings.port}`;
      if (err.code === 'EADDRINUSE') fail(new ListenError(`Port ${settings.port} is already in use on ${settings.bind}. Set ${variable} to a free port (or stop what listens on ${where}).`));
      else if (err.code === 'EACCES') fail(new ListenError(`Not allowed to listen on ${where}. Set ${variable} to a port above 1023, or BIND to another address.`));
      else if (err.code === 'EADDRNOTAVAIL') fail(new ListenError(`${settings.bind} is not an address of this machine. Set BIND to one of its addresses (127.0.0.1 by default).`));
      else fail(err);
    };
    server.once('error', onError);
    server.listen(settings.port, settings.bind, () => {
      server.off('error', onError);
      ready();
    });
  });
}
