// IP addresses as rate limits and outgoing requests need them, without node:net (core stays
// pure): parsing IPv4 and IPv6 text into one 128-bit number (IPv4 as ::ffff:a.b.c.d, so both
// spellings of an IPv4 peer are one address), CIDR ranges, loopback, the /64 an IPv6 client is
// counted by, and whether an address is public (the only ones Rookery's requests may reach).

const V4_MAPPED = 0xffff00000000n;
const ALL = (1n << 128n) - 1n;

export interface ParsedIp {
  /** The address as a 128-bit number, IPv4 mapped into ::ffff:0:0/96. */
  value: bigint;
  v4: boolean;
}

function parseV4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tailV4: bigint | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...left, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => '0'), ...right];
  let value = 0n;
  for (const group of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return tailV4 === null ? value : (value & ~0xffffffffn) | tailV4;
}

/** An IPv4 or IPv6 address (a zone id is dropped); null when the text is not one. */
export function parseIp(text: string): ParsedIp | null {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.length > 64) return null;
  const v4 = parseV4(trimmed);
  if (v4 !== null) return { value: V4_MAPPED | v4, v4: true };
  const v6 = parseV6(trimmed.split('%')[0] ?? '');
  if (v6 === null) return null;
  return { value: v6, v4: v6 >> 32n === V4_MAPPED >> 32n };
}

export interface Cidr {
  value: bigint;
  mask: bigint;
}

/** "10.0.0.0/8", "fd00::/8" or a single address; null when it is neither. */
export function parseCidr(text: string): Cidr | null {
  const [address = '', bits, ...rest] = text.trim().split('/');
  if (rest.length > 0) return null;
  const ip = parseIp(address);
  if (ip === null) return null;
  const max = ip.v4 ? 32 : 128;
  if (bits !== undefined && !/^[0-9]{1,3}$/.test(bits)) return null;
  const length = bits === undefined ? max : Number(bits);
  if (length > max) return null;
  const prefix = ip.v4 ? 96 + length : length;
  const mask = prefix === 0 ? 0n : (ALL << BigInt(128 - prefix)) & ALL;
  return { value: ip.value & mask, mask };
}

export function inCidr(ip: ParsedIp, range: Cidr): boolean {
  return (ip.value & range.mask) === range.value;
}

const LOOPBACK = [parseCidr('127.0.0.0/8'), parseCidr('::1/128')].filter((c): c is Cidr => c !== null);

export function isLoopback(ip: ParsedIp): boolean {
  return LOOPBACK.some((range) => inCidr(ip, range));
}

/** What a client is counted by: its IPv4 address, or the /64 of its IPv6 address (one
 * subscriber usually holds a whole /64). */
export function clientKey(ip: ParsedIp): string {
  if (ip.v4) {
    const v = ip.value & 0xffffffffn;
    return [24n, 16n, 8n, 0n].map((shift) => String((v >> shift) & 0xffn)).join('.');
  }
  return `${(ip.value >> 64n).toString(16)}::/64`;
}

// Whether an address is one an outgoing request may reach: a public unicast address. IPv4
// appears in IPv6 in several spellings (mapped ::ffff:a.b.c.d, which parseIp already treats as
// the IPv4 address whatever its spelling; compatible ::a.b.c.d; NAT64 64:ff9b::a.b.c.d), each
// of which may reach the IPv4 address it embeds, so each is judged by that address or refused.

function cidr(text: string): Cidr {
  const range = parseCidr(text);
  if (range === null) throw new Error(`ip: bad range ${text}`);
  return range;
}

/** IPv4 ranges that are not public, by what they are (IANA's special-purpose registry). */
const V4_NOT_PUBLIC: readonly (readonly [Cidr, string])[] = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
].map(([range = '', name = '']) => [cidr(range), name] as const);

/** Public IPv6 unicast is within 2000::/3, less these; outside it only NAT64 of a public IPv4. */
const V6_GLOBAL_UNICAST = cidr('2000::/3');
const V6_NOT_PUBLIC: readonly (readonly [Cidr, string])[] = [
  ['2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  // Outside 2000::/3 (all refused), named for the error message; the first match names it.
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b:1::/48', 'local-use NAT64, which may embed any IPv4 address'],
  ['::/8', 'reserved'],
  ['100::/64', 'discard-only'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
].map(([range = '', name = '']) => [cidr(range), name] as const);
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');

function v4Range(value: bigint): string | null {
  const ip: ParsedIp = { value: V4_MAPPED | (value & 0xffffffffn), v4: true };
  return V4_NOT_PUBLIC.find(([range]) => inCidr(ip, range))?.[1] ?? null;
}

/** What kind of address this is when it is not public ("loopback", "private" …); null when it
 * is public. */
export function nonPublicRange(ip: ParsedIp): string | null {
  if (ip.v4) return v4Range(ip.value);
  if (ip.value === 0n) return 'unspecified';
  if (ip.value === 1n) return 'loopback';
  if (inCidr(ip, NAT64_WELL_KNOWN)) {
    const embedded = v4Range(ip.value);
    return embedded === null ? null : `NAT64 of ${embedded}`;
  }
  const named = V6_NOT_PUBLIC.find(([range]) => inCidr(ip, range))?.[1];
  if (named !== undefined) return named;
  return inCidr(ip, V6_GLOBAL_UNICAST) ? null : 'reserved';
}

/** An IP address (IPv4, IPv6 in any spelling, or a URL's bracketed IPv6 host) that is public;
 * false for anything else, text that is not an address included. */
export function isPublicAddress(text: string): boolean {
  const ip = parseIp(text.replace(/^\[(.*)\]$/, '$1'));
  return ip !== null && nonPublicRange(ip) === null;
}
