/**
 * Which IP addresses a fetch the gateway makes on a client's say-so may reach
 * (security.md, "Client ID metadata documents"). A client ID metadata document URL is
 * chosen by whoever starts a sign-in, so without this check it would make the gateway
 * read its own network: a cloud metadata service, an admin port on loopback, a database
 * on the private network. Only globally routable unicast addresses pass.
 */
import { isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'private';

/** `[start, prefix length]` of IPv4 ranges that are not the public internet. */
const IPV4_NOT_PUBLIC: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
];

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inIpv4Range(n: number, start: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const base = ipv4ToNumber(start);
  return n >= base && n < base + size;
}

function classifyIpv4(n: number): AddressClass {
  if (inIpv4Range(n, '127.0.0.0', 8)) return 'loopback';
  for (const [start, bits] of IPV4_NOT_PUBLIC) if (inIpv4Range(n, start, bits)) return 'private';
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 read). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = ipv4ToNumber(dotted[1]!);
    tail.push(Math.floor(n / 65536), n % 65536);
    text = text.slice(0, -dotted[1]!.length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head = '', rest] = text.split('::') as [string, string | undefined];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = [...parse(rest ?? ''), ...tail];
  if (rest === undefined) return [...left, ...tail];
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

function classifyIpv6(ip: string): AddressClass {
  const g = ipv6Groups(ip);
  const [a = 0, b = 0] = g;
  const embeddedV4 = (hi: number, lo: number): number => hi * 65536 + lo;
  const upperZero = g.slice(0, 5).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 address itself on a dual-stack socket.
  if (upperZero && g[5] === 0xffff) return classifyIpv4(embeddedV4(g[6]!, g[7]!));
  if (upperZero && g[5] === 0) {
    if (g[6] === 0 && g[7] === 1) return 'loopback';
    return 'private'; // unspecified, and the deprecated IPv4-compatible form
  }
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they embed.
  if (a === 0x64 && b === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return classifyIpv4(embeddedV4(g[6]!, g[7]!)) === 'public' ? 'public' : 'private';
  if (a === 0x2002) return classifyIpv4(embeddedV4(b, g[2]!)) === 'public' ? 'public' : 'private';
  if ((a & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80 || (a & 0xffc0) === 0xfec0) return 'private'; // link-, site-local
  if ((a & 0xff00) === 0xff00) return 'private'; // multicast
  if (a === 0x2001 && (b === 0x0db8 || b === 0)) return 'private'; // documentation, Teredo
  if (a === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'private'; // discard-only
  return 'public';
}

/** Public, loopback, or anything else a fetch on a client's say-so must not reach. */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 4) return classifyIpv4(ipv4ToNumber(ip));
  if (family === 6) return classifyIpv6(ip);
  return 'private';
}

/** Whether the fetcher may connect to `ip`: public addresses, and loopback when tests allow it. */
export function mayConnect(ip: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(ip);
  return kind === 'public' || (allowLoopback && kind === 'loopback');
}
