import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a company's webhook may point. Checked when a subscription is saved (the API) and again
 * before every attempt (the delivery activity), because a name may resolve elsewhere by then (DNS
 * rebinding); the attempt then connects to the address that was checked, never to a second lookup.
 *
 * With `allowLocal` false (production): https only, and no address that is private, loopback,
 * link-local, shared (CGNAT), multicast, reserved or for documentation, in IPv4 or IPv6: an IPv6
 * address must be global unicast outside the special-purpose blocks, and one that carries an IPv4
 * address (IPv4-mapped, NAT64, 6to4) is judged by it. Always: an absolute http(s) URL without user
 * name or password. `allowLocal` (WEBHOOK_ALLOW_LOCAL_TARGETS, on outside production, refused at
 * start-up in production) admits http and local receivers.
 */

export type TargetProblem =
  'NOT_A_URL' | 'TOO_LONG' | 'HTTPS_REQUIRED' | 'CREDENTIALS_IN_URL' | 'PRIVATE_ADDRESS' | 'UNRESOLVABLE';

export interface TargetPolicy {
  allowLocal: boolean;
}

const MAX_URL_LENGTH = 2048;

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}

/**
 * The special-purpose blocks inside global unicast 2000::/3 (IANA IPv6 Special-Purpose Address
 * Registry): 2001::/23 (Teredo 2001::/32, benchmarking, ORCHID ...), documentation 2001:db8::/32 and
 * 3fff::/20. 6to4 (2002::/16) is judged by the IPv4 address it carries.
 */
const refusedGlobal = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const) {
  refusedGlobal.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (a zone index is dropped). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groupsOf = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return groupsOf(head);
  const left = groupsOf(head);
  const right = groupsOf(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address of two 16-bit groups. */
const ipv4Of = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * Whether an IPv6 address is refused: IPv4-mapped (::ffff:0:0/96) and well-known NAT64
 * (64:ff9b::/96) addresses, and 6to4 (2002::/16), are judged by the IPv4 address they carry; any
 * other address must be global unicast (2000::/3) outside its special-purpose blocks. So
 * IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96), local-use NAT64 (64:ff9b:1::/48),
 * loopback, unique-local, link-local, multicast and discard addresses are all refused.
 */
function isRefusedIpv6(address: string): boolean {
  const groups = ipv6Groups(address);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const [first = 0, second = 0, third = 0, , , sixth = 0, seventh = 0, eighth = 0] = groups;
  const lastIpv4 = ipv4Of(seventh, eighth);
  if (zeros(0, 5) && sixth === 0xffff) return refused.check(lastIpv4, 'ipv4');
  if (first === 0x64 && second === 0xff9b && zeros(2, 6)) return refused.check(lastIpv4, 'ipv4');
  if (first === 0x2002) return refused.check(ipv4Of(second, third), 'ipv4');
  if ((first & 0xe000) !== 0x2000) return true;
  return refusedGlobal.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
}

/** Whether an IP address is one a production webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  return isRefusedIpv6(address);
}

/** The host of a URL without IPv6 brackets. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** The problem with a URL as written (no lookup), or null. */
export function urlProblem(text: string, policy: TargetPolicy): TargetProblem | null {
  if (text.length > MAX_URL_LENGTH) return 'TOO_LONG';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'NOT_A_URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'NOT_A_URL';
  if (!url.hostname) return 'NOT_A_URL';
  if (url.username || url.password) return 'CREDENTIALS_IN_URL';
  if (policy.allowLocal) return null;
  if (url.protocol !== 'https:') return 'HTTPS_REQUIRED';
  const host = bareHost(url).toLowerCase();
  if (isIP(host)) return isPrivateAddress(host) ? 'PRIVATE_ADDRESS' : null;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'PRIVATE_ADDRESS';
  return null;
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the attempt connects to. */
  address: string;
  family: 4 | 6;
}

export type HostLookup = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * How long a lookup may take before the target is UNRESOLVABLE. dns.lookup has no deadline (a slow
 * name server holds it for the system resolver's own timeouts and retries), and it runs in a
 * subscription request and before every attempt, where it shares the attempt activity's limit with
 * WEBHOOK_ATTEMPT_TIMEOUT_MS (config/index.ts).
 */
export const WEBHOOK_LOOKUP_TIMEOUT_MS = 5_000;

const systemLookup: HostLookup = (host) => lookup(host, { all: true });

/** `resolve(host)`, or a rejection once `timeoutMs` has passed (the lookup itself is left to end). */
function lookupWithin(resolve: HostLookup, host: string, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([resolve(host), deadline]).finally(() => clearTimeout(timer));
}

/**
 * Resolves the URL's host and checks every address it names; the answer pins the first one. A
 * name that does not resolve, or not within `timeoutMs`, is UNRESOLVABLE (an attempt retries it
 * later; a subscription is saved and checked at each attempt).
 */
export async function resolveTarget(
  text: string,
  policy: TargetPolicy,
  resolve: HostLookup = systemLookup,
  timeoutMs: number = WEBHOOK_LOOKUP_TIMEOUT_MS,
): Promise<ResolvedTarget | { problem: TargetProblem }> {
  const problem = urlProblem(text, policy);
  if (problem) return { problem };
  const url = new URL(text);
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookupWithin(resolve, host, timeoutMs);
  } catch {
    return { problem: 'UNRESOLVABLE' };
  }
  if (!addresses.length) return { problem: 'UNRESOLVABLE' };
  if (!policy.allowLocal && addresses.some((entry) => isPrivateAddress(entry.address))) {
    return { problem: 'PRIVATE_ADDRESS' };
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
