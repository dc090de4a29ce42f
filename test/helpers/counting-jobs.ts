// A plugin as it is, with every queue job it registers counted when it runs here: lets a test
// with several processes see which of them did the work.

import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';

export function countingJobs(plugin: RookeryPlugin, counter: { runs: number }): RookeryPlugin {
  return {
    name: plugin.name,
    register(host) {
      return plugin.register({
        ...host,
        handleJob: (name, handler, options) =>
          host.handleJob(
            name,
            async (payload, job) => {
              counter.runs += 1;
              await handler(payload, job);
            },
            options,
          ),
      });
    },
  };
}
