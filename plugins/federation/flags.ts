// A report about a remote account, filed with `forward`, goes to that account's server as a
// Flag, as Mastodon forwards it: from the instance actor (the reporter stays anonymous), naming
// the account and the reported statuses, with the comment, to the account's own inbox.

import type { PluginHost } from 'rookery/plugin-kit';
import { Flag } from '@fedify/fedify/vocab';
import { recipientOf, type FederationParts } from './federation.ts';

export function forwardReports(host: PluginHost, parts: FederationParts, isBlocked: (domain: string) => Promise<boolean>): void {
  host.on('report.created', async ({ report }) => {
    if (!report.forwarded) return;
    const target = await host.system.accounts.get(report.targetAccountId);
    if (target === null || target.domain === null || target.uri === null || (await isBlocked(target.domain))) return;
    const statuses = await host.system.statuses.getMany(report.statusIds);
    const ctx = parts.context();
    const recipient = await recipientOf(parts, ctx, target);
    if (recipient === null) return;
    const flag = new Flag({
      id: new URL(`${host.config.baseUrl}/reports/${report.id}`),
      actor: parts.instance.id,
      objects: [new URL(target.uri), ...statuses.flatMap((status) => (status.uri === null ? [] : [new URL(status.uri)]))],
      content: report.comment,
    });
    await ctx.sendActivity(await parts.instance.keyPair(), recipient, flag);
  });
}
