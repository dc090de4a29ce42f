// IP blocks (Mastodon 4.4's IpBlock): a range (CIDR) with a severity. sign_up_requires_approval
// holds new accounts from it for approval, sign_up_block refuses sign-up from it, no_access refuses
// every request from it (the HTTP front asks `ipAccess`). The blocks are read at most every few
// seconds per process (Mastodon caches its no_access map too); a change made here is seen at once.

import type { Core } from '../context.ts';
import { notFound, RookeryError } from '../errors.ts';
import { inCidr, isLoopback, parseCidr, parseIp, type Cidr, type ParsedIp } from '../ip.ts';
import { isId } from '../ids.ts';
import type { Account, ServerBlock } from '../model.ts';
import { adminAction, getServerBlock } from './server-blocks.ts';

export const IP_SEVERITIES = ['sign_up_requires_approval', 'sign_up_block', 'no_access'] as const;
export type IpSeverity = (typeof IP_SEVERITIES)[number];

/** Bounds what one block may carry (Mastodon's column has no limit). */
export const IP_COMMENT_LIMIT = 5000;
/** At most a century ahead. */
const EXPIRES_IN_LIMIT = 100 * 365 * 86_400;
const CACHE_MS = 5000;
const PAGE = 200;

const invalid = (messages: string[]) => new RookeryError(422, `Validation failed: ${messages.join(', ')}`);

function hex4(v: bigint): string {
  return v.toString(16);
}

/** A range as Mastodon shows it ("10.0.0.0/8", "2001:db8::/32"): the network address, then its
 * prefix; a single address is a /32 or /128. null when the text is neither. */
export function normalizeCidr(text: string): string | null {
  if (text.length > 64) return null;
  const range = parseCidr(text);
  const ip = parseIp(text.trim().split('/')[0] ?? '');
  if (range === null || ip === null) return null;
  const ones = range.mask.toString(2).replace(/0+$/, '').length;
  if (ip.v4) {
    const v = range.value & 0xffffffffn;
    return `${[24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.')}/${ones - 96}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => (range.value >> BigInt(112 - 16 * i)) & 0xffffn);
  // The longest run of zero groups (two or more) becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0n) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0n) j += 1;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const text6 =
    best === -1 ? groups.map(hex4).join(':') : `${groups.slice(0, best).map(hex4).join(':')}::${groups.slice(best + bestLength).map(hex4).join(':')}`;
  return `${text6}/${ones}`;
}

export interface IpBlockInput {
  ip?: string | undefined;
  severity?: string | undefined;
  comment?: string | undefined;
  /** Seconds from now; '' or absent: never. */
  expiresIn?: string | undefined;
}

/** `now`: the time the block is written with, so that expires_at − created_at is exactly the
 * seconds asked for (two clock reads could differ by a millisecond). */
function expiresAt(now: number, expiresIn: string): number | null {
  if (expiresIn.trim() === '') return null;
  // Ruby's to_i: the leading integer, 0 when there is none.
  const seconds = Math.min(Math.max(Number.parseInt(expiresIn.trim(), 10) || 0, 0), EXPIRES_IN_LIMIT);
  return now + seconds * 1000;
}

function check(input: IpBlockInput, creating: boolean): { key?: string; severity?: IpSeverity; errors: string[] } {
  const errors: string[] = [];
  const out: { key?: string; severity?: IpSeverity; errors: string[] } = { errors };
  if (creating || input.ip !== undefined) {
    // An address the database cannot read is no address: Mastodon says it is blank.
    const key = input.ip === undefined ? null : normalizeCidr(input.ip);
    if (key === null) errors.push("Ip can't be blank");
    else out.key = key;
  }
  if (creating || input.severity !== undefined) {
    if (input.severity === undefined || input.severity === '') errors.push("Severity can't be blank");
    else if (!(IP_SEVERITIES as readonly string[]).includes(input.severity)) errors.push('Severity is not included in the list');
    else out.severity = input.severity as IpSeverity;
  }
  if (input.comment !== undefined && [...input.comment].length > IP_COMMENT_LIMIT) errors.push(`Comment is too long (maximum is ${IP_COMMENT_LIMIT} characters)`);
  return out;
}

export async function createIpBlock(core: Core, by: Account, input: IpBlockInput): Promise<ServerBlock> {
  const { key, severity, errors } = check(input, true);
  if (errors.length > 0 || key === undefined || severity === undefined) throw invalid(errors);
  const now = core.clock.now();
  const block: ServerBlock = {
    id: core.ids.next(),
    kind: 'ip',
    key,
    severity,
    comment: input.comment ?? '',
    expiresAt: input.expiresIn === undefined ? null : expiresAt(now, input.expiresIn),
    createdAt: now,
    updatedAt: now,
  };
  if (!(await core.storage.serverBlocks.create(block, adminAction(core, by, 'create', 'IpBlock', block.id)))) throw invalid(['Ip has already been taken']);
  forget(core);
  return block;
}

export async function updateIpBlock(core: Core, by: Account, id: string, input: IpBlockInput): Promise<ServerBlock> {
  await getServerBlock(core, 'ip', id);
  const { key, severity, errors } = check(input, false);
  if (errors.length > 0) throw invalid(errors);
  const now = core.clock.now();
  const patch: Parameters<Core['storage']['serverBlocks']['update']>[2] = { updatedAt: now };
  if (key !== undefined) patch.key = key;
  if (severity !== undefined) patch.severity = severity;
  if (input.comment !== undefined) patch.comment = input.comment;
  if (input.expiresIn !== undefined) patch.expiresAt = expiresAt(now, input.expiresIn);
  const updated = isId(id) ? await core.storage.serverBlocks.update('ip', id, patch, adminAction(core, by, 'update', 'IpBlock', id)) : null;
  if (updated === false) throw invalid(['Ip has already been taken']);
  if (updated === null) throw notFound();
  forget(core);
  return updated;
}

// ---- enforcement ------------------------------------------------------------------------------

interface Loaded {
  at: number;
  ranges: { range: Cidr; severity: string; expiresAt: number | null }[];
}

const cache = new WeakMap<object, Loaded>();

/** Drops this process's copy, after a change made here. */
export function forget(core: Core): void {
  cache.delete(core.storage);
}

async function ranges(core: Core): Promise<Loaded['ranges']> {
  const now = core.clock.now();
  const hit = cache.get(core.storage);
  if (hit !== undefined && now - hit.at < CACHE_MS && now >= hit.at) return hit.ranges;
  const all: Loaded['ranges'] = [];
  let maxId: string | undefined;
  for (;;) {
    const page = await core.storage.serverBlocks.list('ip', maxId === undefined ? { limit: PAGE } : { limit: PAGE, maxId });
    for (const b of page) {
      const range = parseCidr(b.key);
      if (range !== null && b.severity !== null) all.push({ range, severity: b.severity, expiresAt: b.expiresAt });
    }
    if (page.length < PAGE) break;
    maxId = page.at(-1)?.id;
  }
  cache.set(core.storage, { at: now, ranges: all });
  return all;
}

/** Whether any IP block is stored (most instances have none: then no address is parsed). */
export async function anyIpBlocks(core: Core): Promise<boolean> {
  return (await ranges(core)).length > 0;
}

/** The severities of the live blocks whose range holds the address; none for loopback (Mastodon
 * never blocks localhost) or something that is no address. */
export async function ipSeverities(core: Core, ip: ParsedIp | null): Promise<Set<string>> {
  if (ip === null || isLoopback(ip)) return new Set();
  const now = core.clock.now();
  return new Set((await ranges(core)).filter((r) => (r.expiresAt === null || r.expiresAt > now) && inCidr(ip, r.range)).map((r) => r.severity));
}
