import { isIPv4, isIPv6 } from 'node:net';
import type { Context } from 'koa';

/**
 * The client a per-IP rate limit counts: one IPv4 address, or one IPv6 /64. An IPv6 client is
 * routinely given a whole /64 (2^64 addresses) and may pick any of them, so counting each address
 * alone would let one client rotate past every per-IP limit. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, what a dual-stack socket reports for an IPv4 peer) counts as its IPv4 address.
 * Anything that is not an IP address is kept as it is. Audit rows keep the exact address
 * (requestOrigin), never this key.
 */
export function rateLimitAddress(address: string): string {
  if (isIPv4(address)) return address;
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The rate-limit key of the request's client IP (ctx.ip, as TRUSTED_PROXY_HOPS resolves it). */
export function clientKey(ctx: Context): string {
  return rateLimitAddress(ctx.ip);
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part is two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (dotted) {
    const [a, b, c, d] = dotted[2]!.split('.').map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
