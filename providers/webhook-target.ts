import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a company's webhook may point. Checked when a subscription is saved (the API) and again
 * before every attempt (the delivery activity), because a name may resolve elsewhere by then (DNS
 * rebinding); the attempt then connects to the address that was checked, never to a second lookup.
 *
 * With `allowLocal` false (production): https only, and no address that is private, loopback,
 * link-local, shared (CGNAT), multicast, reserved or for documentation, in IPv4 or IPv6 (IPv4-mapped
 * and NAT64 forms included). Always: an absolute http(s) URL without user name or password.
 * `allowLocal` (WEBHOOK_ALLOW_LOCAL_TARGETS, on outside production) admits http and local receivers.
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
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is one a production webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(address);
  if (inner) return refused.check(inner, 'ipv4');
  return refused.check(address, 'ipv6');
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
