// Hiding a whole remote domain from oneself (Mastodon's account domain blocks): its accounts'
// statuses and notifications stop reaching the user, and follows across the block end.

import type { Core } from '../context.ts';
import { unprocessable } from '../errors.ts';
import type { Account } from '../model.ts';
import type { DomainBlock, Page } from '../ports/storage.ts';
import { fillPage, type Slice } from '../paging.ts';

/** A host name as users type it: lower case, without a scheme, path or port. */
export function normalizeDomain(input: string): string {
  let domain = input.trim().toLowerCase();
  domain = domain.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  domain = domain.replace(/[/?#].*$/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  return domain;
}

/** A syntactically plausible host name (labels of letters, digits and hyphens, or IDN). */
const HOST = /^(?=.{1,253}$)(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)*[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

function validDomain(core: Core, input: string): string {
  const domain = normalizeDomain(input);
  if (domain === '') throw unprocessable("Validation failed: Domain can't be blank");
  if (!HOST.test(domain)) throw unprocessable('Validation failed: Domain is not a valid domain name');
  if (domain === normalizeDomain(core.config.domain)) throw unprocessable('Validation failed: Domain is your own');
  return domain;
}

export async function blockDomain(core: Core, actor: Account, input: string): Promise<void> {
  const domain = validDomain(core, input);
  const block: DomainBlock = { id: core.ids.next(), accountId: actor.id, domain, createdAt: core.clock.now() };
  await core.storage.relationships.blockDomain(block, (added) =>
    added ? core.record({ type: 'relationship.changed', accountId: actor.id, targetAccountId: null }) : [],
  );
}

export async function unblockDomain(core: Core, actor: Account, input: string): Promise<void> {
  const domain = normalizeDomain(input);
  if (domain === '') throw unprocessable("Validation failed: Domain can't be blank");
  await core.storage.relationships.unblockDomain(actor.id, domain, (removed) =>
    removed ? core.record({ type: 'relationship.changed', accountId: actor.id, targetAccountId: null }) : [],
  );
}

export function domainBlocksOf(core: Core, actor: Account, page: Page): Promise<Slice<DomainBlock>> {
  return fillPage(page, (b) => b.id, (p) => core.storage.relationships.domainBlocksBy(actor.id, p), async (rows) => rows);
}
