// rookery/uws: Mastodon's streaming API (SSE and WebSocket) on uWebSockets.js, on its own port.
//
//   const streaming = await startStreamingServer(rookery, { port: 4000, host: '127.0.0.1' });
//   …
//   await streaming.close();
//
// Advertise where clients reach it with config.streamingUrl (ws:// or wss://, the public URL
// when a reverse proxy sits in front). It needs uWebSockets.js installed as
// "uWebSockets.js": npm:@btc-vision/uwebsockets.js@20.57.0, and glibc >= 2.38 on Linux.

export { startStreamingServer, type StreamingServer, type StreamingServerOptions } from './server.ts';
export { loadUws, UWS_REQUIREMENT } from './load.ts';
