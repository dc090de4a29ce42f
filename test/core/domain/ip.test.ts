// Which addresses an outgoing request may reach: every spelling of an IPv4 address inside IPv6
// (mapped, in hex and dotted; compatible; NAT64) is judged by the IPv4 address it reaches or
// refused, every special-purpose range is refused, and public addresses pass.

import t from 'tap';
import { isPublicAddress, nonPublicRange, parseIp } from '../../../core/domain/ip.ts';

const NOT_PUBLIC: readonly (readonly [string, string])[] = [
  ['0.0.0.0', '"this network"'],
  ['0.1.2.3', '"this network"'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['192.0.0.170', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  // IPv4-mapped, dotted and in the hex form URL parsing writes.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['::ffff:ac10:1', 'private'],
  ['::ffff:c0a8:101', 'private'],
  ['::ffff:6440:1', 'carrier-grade NAT'],
  ['::ffff:0.0.0.0', '"this network"'],
  ['::ffff:0:0', '"this network"'],
  ['::ffff:e000:1', 'multicast'],
  // IPv4-compatible (deprecated, never public), dotted and hex.
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::7f00:1', 'IPv4-compatible'],
  ['::a9fe:a9fe', 'IPv4-compatible'],
  ['::10.0.0.1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible'],
  // IPv4-translated (SIIT) and the rest of ::/8.
  ['::ffff:0:7f00:1', 'reserved'],
  ['::1:0:0:1', 'reserved'],
  // NAT64: the well-known prefix judged by the IPv4 address it embeds, the local-use one refused.
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::7f00:1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of link-local'],
  ['64:ff9b::169.254.169.254', 'NAT64 of link-local'],
  ['64:ff9b::a00:1', 'NAT64 of private'],
  ['64:ff9b::192.168.0.1', 'NAT64 of private'],
  ['64:ff9b::6440:1', 'NAT64 of carrier-grade NAT'],
  ['64:ff9b::0.0.0.0', 'NAT64 of "this network"'],
  ['64:ff9b:1::7f00:1', 'local-use NAT64, which may embed any IPv4 address'],
  ['64:ff9b:1:7f00:1::', 'local-use NAT64, which may embed any IPv4 address'],
  ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64, which may embed any IPv4 address'],
  ['64:ff9b:1::8.8.8.8', 'local-use NAT64, which may embed any IPv4 address'],
  // IPv6 special-purpose ranges.
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['100::1', 'discard-only'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:2::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:20::1', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2002:7f00:1::1', '6to4'],
  ['2002:a9fe:a9fe::', '6to4'],
  ['5f00::1', 'segment routing'],
  ['4000::1', 'reserved'],
  ['e000::1', 'reserved'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '169.253.255.255',
  '169.255.0.1',
  '192.167.255.255',
  '192.169.0.1',
  '223.255.255.255',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
  '64:ff9b::5db8:d822',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:81c::200e',
  '2001:200::1',
  '3ffe::1',
];

t.test('every non-public address, in each spelling, is refused and says what it is', async (t) => {
  for (const [address, range] of NOT_PUBLIC) {
    const ip = parseIp(address);
    t.not(ip, null, `${address} parses`);
    if (ip !== null) t.equal(nonPublicRange(ip), range, address);
    t.equal(isPublicAddress(address), false, address);
    if (address.includes(':')) t.equal(isPublicAddress(`[${address}]`), false, `[${address}], as URL.hostname writes it`);
  }
});

t.test('public addresses pass', async (t) => {
  for (const address of PUBLIC) {
    const ip = parseIp(address);
    t.equal(ip === null ? 'unparsed' : nonPublicRange(ip), null, address);
    t.equal(isPublicAddress(address), true, address);
    if (address.includes(':')) t.equal(isPublicAddress(`[${address}]`), true, `[${address}]`);
  }
});

t.test('what is not an address is not public', async (t) => {
  for (const text of ['', 'localhost', 'example.com', '1.2.3', '1.2.3.4.5', '01.2.3.4', '::ffff:1.2.3.256', '1::2::3', '[::1', '::1]', '12345::1', 'fe80::1%eth0x', ' ']) {
    t.equal(isPublicAddress(text), false, JSON.stringify(text));
  }
  t.equal(isPublicAddress('fe80::1%eth0'), false, 'a zone id is dropped: still link-local');
});
