// IP addresses as rate limits need them, without node:net (core stays pure): parsing IPv4 and
// IPv6 text into one 128-bit number (IPv4 as ::ffff:a.b.c.d, so both spellings of an IPv4
// peer are one address), CIDR ranges, loopback, and the /64 an IPv6 client is counted by.

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
