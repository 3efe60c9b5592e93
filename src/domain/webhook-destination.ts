/**
 * Where a webhook may be sent (GitLab's UrlBlocker, reduced): http or https only, and, unless the
 * administrator allows local requests, never to loopback, link-local, private, shared, multicast
 * or unspecified addresses. The check is made on the addresses a name resolved to, and the caller
 * connects to the address that was checked, so a name cannot resolve to something else later.
 */
import { BlockList, isIP } from 'node:net';

export type Refusal =
  'scheme' | 'invalid' | 'localhost' | 'local_network' | 'link_local' | 'unspecified' | 'multicast';

/** GitLab's wording (`Url is blocked: …`). */
export const REFUSAL_TEXT: Record<Refusal, string> = {
  scheme: 'Only allowed schemes are http, https',
  invalid: 'Host cannot be resolved or invalid',
  localhost: 'Requests to localhost are not allowed',
  local_network: 'Requests to the local network are not allowed',
  link_local: 'Requests to the link local network are not allowed',
  unspecified: 'Requests to the unspecified address are not allowed',
  multicast: 'Requests to multicast or broadcast addresses are not allowed',
};

function blockList(v4: string[], v6: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of v4) {
    const [net = '', bits = '32'] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv4');
  }
  for (const cidr of v6) {
    const [net = '', bits = '128'] = cidr.split('/');
    list.addSubnet(net, Number(bits), 'ipv6');
  }
  return list;
}

// Ordered: the first class an address falls in names the refusal.
const CLASSES: [Refusal, BlockList][] = [
  ['unspecified', blockList(['0.0.0.0/8'], ['::/128'])],
  ['localhost', blockList(['127.0.0.0/8'], ['::1/128'])],
  ['link_local', blockList(['169.254.0.0/16'], ['fe80::/10'])],
  [
    'local_network',
    // RFC 1918, shared address space (RFC 6598), unique local IPv6, and the IPv4 ranges that are
    // never global (benchmarking, documentation nets stay allowed as GitLab allows them).
    blockList(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'], ['fc00::/7']),
  ],
  ['multicast', blockList(['224.0.0.0/4', '240.0.0.0/4'], ['ff00::/8'])],
];

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Why an address may not be reached without the local-requests setting, or null when it may. */
export function classifyAddress(address: string): Refusal | null {
  const mapped = MAPPED_V4.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const family = isIP(ip);
  if (family === 0) return 'invalid';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [refusal, list] of CLASSES) {
    if (list.check(ip, type)) return refusal;
  }
  return null;
}

export interface ParsedDestination {
  url: URL;
  /** The host to resolve (brackets of an IPv6 literal removed). */
  hostname: string;
  /** The host is an IP address literal: nothing to resolve. */
  literal: boolean;
}

/**
 * Parses a hook URL without resolving anything: a refusal for what is wrong whatever DNS says
 * (scheme, syntax, credentials-free host, an IP literal or `localhost` when local is refused).
 */
export function parseDestination(
  raw: string,
  allowLocal: boolean,
): { ok: true; destination: ParsedDestination } | { ok: false; refusal: Refusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, refusal: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, refusal: 'scheme' };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname === '') return { ok: false, refusal: 'invalid' };
  const literal = isIP(hostname) !== 0;
  if (!allowLocal) {
    if (literal) {
      const refusal = classifyAddress(hostname);
      if (refusal) return { ok: false, refusal };
    } else if (isLocalhostName(hostname)) {
      return { ok: false, refusal: 'localhost' };
    }
  }
  return { ok: true, destination: { url, hostname, literal } };
}

/** `localhost`, `foo.localhost` (RFC 6761 names that always mean loopback). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Picks the address to connect to from what the name resolved to: refused when any of them is
 * refused (a name with one public and one private address could be steered to the private one).
 */
export function chooseAddress(
  addresses: readonly { address: string; family: number }[],
  allowLocal: boolean,
): { ok: true; address: string; family: 4 | 6 } | { ok: false; refusal: Refusal } {
  if (addresses.length === 0) return { ok: false, refusal: 'invalid' };
  if (!allowLocal) {
    for (const { address } of addresses) {
      const refusal = classifyAddress(address);
      if (refusal) return { ok: false, refusal };
    }
  }
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
