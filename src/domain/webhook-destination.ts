/**
 * Where a webhook may be sent (GitLab's UrlBlocker, reduced): http or https only, and, unless the
 * administrator allows local requests, only to globally routable unicast addresses. The check is
 * made on the addresses a name resolved to, and the caller connects to the address that was
 * checked, so a name cannot resolve to something else later.
 *
 * Addresses are classified by ipaddr.js's table of special ranges, and only its `unicast` class
 * (what no special range claims) is accepted: a range the table learns is refused without a change
 * here. An IPv6 address that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4,
 * Teredo) is judged by the IPv4 address it carries, since that is where the packets end up.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type Refusal =
  | 'scheme'
  | 'invalid'
  | 'localhost'
  | 'local_network'
  | 'link_local'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

/** GitLab's wording (`Url is blocked: …`). */
export const REFUSAL_TEXT: Record<Refusal, string> = {
  scheme: 'Only allowed schemes are http, https',
  invalid: 'Host cannot be resolved or invalid',
  localhost: 'Requests to localhost are not allowed',
  local_network: 'Requests to the local network are not allowed',
  link_local: 'Requests to the link local network are not allowed',
  unspecified: 'Requests to the unspecified address are not allowed',
  multicast: 'Requests to multicast or broadcast addresses are not allowed',
  reserved: 'Requests to reserved, documentation or benchmarking addresses are not allowed',
};

/** ipaddr.js's range names, by the refusal they earn; any other range but `unicast` is reserved. */
const REFUSAL_OF_RANGE: Record<string, Refusal> = {
  unspecified: 'unspecified',
  loopback: 'localhost',
  linkLocal: 'link_local',
  private: 'local_network',
  carrierGradeNat: 'local_network',
  uniqueLocal: 'local_network',
  deprecatedSiteLocal: 'local_network',
  multicast: 'multicast',
  broadcast: 'multicast',
};

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

function v4At(parts: readonly number[], index: number, invert = false): IPv4 {
  const high = parts[index]! ^ (invert ? 0xffff : 0);
  const low = parts[index + 1]! ^ (invert ? 0xffff : 0);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const COMPATIBLE = ipaddr.IPv6.parse('::');
const NAT64_LOCAL = ipaddr.IPv6.parse('64:ff9b:1::');

/**
 * The IPv4 addresses an IPv6 address leads to, or null when it carries none: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), the deprecated IPv4-compatible (::/96),
 * NAT64's well-known prefix (64:ff9b::/96), 6to4 (2002::/16, its relay) and Teredo (2001::/32,
 * its server and the client, whose address is stored inverted).
 */
function embeddedV4(address: IPv6): IPv4[] | null {
  const parts = address.parts;
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4At(parts, 6)];
    case 'rfc6052':
      // The local-use prefix (64:ff9b:1::/48) places the IPv4 address wherever the network
      // chose: it is a local network's by definition.
      return address.match(NAT64_LOCAL, 48) ? null : [v4At(parts, 6)];
    case '6to4':
      return [v4At(parts, 1)];
    case 'teredo':
      return [v4At(parts, 2), v4At(parts, 6, true)];
    default:
      // :: and ::1 are in ::/96 too, and keep their own classes (unspecified, loopback).
      return range === 'unicast' && address.match(COMPATIBLE, 96) ? [v4At(parts, 6)] : null;
  }
}

function refusalOfRange(range: string): Refusal | null {
  if (range === 'unicast') return null;
  return REFUSAL_OF_RANGE[range] ?? 'reserved';
}

/** Why an address may not be reached without the local-requests setting, or null when it may. */
export function classifyAddress(address: string): Refusal | null {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return refusalOfRange(parsed.range());
  const v6 = parsed as IPv6;
  const embedded = embeddedV4(v6);
  if (embedded === null) {
    // 64:ff9b:1::/48 lands here with its range (rfc6052): refused as a local network's.
    return v6.range() === 'rfc6052' ? 'local_network' : refusalOfRange(v6.range());
  }
  for (const v4 of embedded) {
    const refusal = refusalOfRange(v4.range());
    if (refusal) return refusal;
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
