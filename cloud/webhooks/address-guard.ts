/**
 * Where webhook deliveries may go. A tenant chooses the URL, so without this guard a subscription
 * could make the cloud POST into its own network (metadata service, databases, admin ports).
 * Only public unicast addresses pass unless the deployment explicitly allows private targets
 * (development, appliance-local tests).
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, isIPv4, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

const MAX_URL_LENGTH = 2048;

// Names that resolve to this machine or a private zone by convention, whatever DNS says.
const LOCAL_NAME_SUFFIXES = ['.localhost', '.internal', '.local'];

const bits32 = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

function isForbiddenIPv4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special-purpose block (private, loopback, CGNAT, documentation,
  // benchmarking, multicast, broadcast, reserved, ...); anything with a name is not for us.
  return address.range() !== 'unicast';
}

/**
 * IPv6 forms that carry an IPv4 address reach that IPv4 host through a translator or tunnel, so
 * they are judged by the IPv4 inside. Returns undefined for addresses that embed nothing.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (SIIT)
      return [bits32(p[6], p[7])];
    case 'rfc6052': // 64:ff9b::/96 NAT64; the local-use 64:ff9b:1::/48 is private by definition
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? [bits32(p[6], p[7])] : [];
    case '6to4': // 2002:AABB:CCDD::/48
      return [bits32(p[1], p[2])];
    case 'teredo': // 2001:0:<server v4>:<flags>:<port>:<client v4 xor ffff>
      return [bits32(p[2], p[3]), bits32(p[6] ^ 0xffff, p[7] ^ 0xffff)];
    default:
      return undefined;
  }
}

/** Deprecated IPv4-compatible form ::a.b.c.d (ipaddr.js calls it plain unicast). */
const isIPv4Compatible = (address: ipaddr.IPv6): boolean =>
  address.parts.slice(0, 6).every((part) => part === 0);

function isForbiddenIPv6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedIPv4(address);
  // An empty list means a translation prefix whose IPv4 we cannot place: refuse it.
  if (embedded) return embedded.length === 0 || embedded.some(isForbiddenIPv4);
  // Never routed as such today (RFC 4291 deprecated it); :: and ::1 are caught by range() too.
  if (isIPv4Compatible(address)) return true;
  return address.range() !== 'unicast';
}

/**
 * True unless `address` is a public unicast IP. Only canonical forms count (dotted quad, IPv6 text):
 * shorthand such as `0177.1` or `2130706433` is refused rather than guessed at.
 */
export function isForbiddenAddress(address: string): boolean {
  const parsed = typeof address === 'string' ? parseCanonical(address) : undefined;
  if (!parsed) return true;
  return parsed.kind() === 'ipv4'
    ? isForbiddenIPv4(parsed as ipaddr.IPv4)
    : isForbiddenIPv6(parsed as ipaddr.IPv6);
}

function parseCanonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return ipaddr.IPv4.parse(bare);
  if (version !== 6) return undefined;
  try {
    // ipaddr.js reads `::a.b.c.d` as IPv4-mapped; the URL parser's all-hex form avoids that. The
    // zone (`%eth0`) does not change which range an address is in.
    const hex = new URL(`http://[${bare.split('%')[0]}]/`).hostname.slice(1, -1);
    return ipaddr.IPv6.parse(hex);
  } catch {
    return undefined;
  }
}

/** The host as an IP literal, or undefined for a name. WHATWG URL has already canonicalised it. */
function ipLiteralOf(url: URL): string | undefined {
  const host = url.hostname;
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return isIPv4(host) ? host : undefined;
}

function isLocalName(hostname: string): boolean {
  // A trailing dot is the same name written fully qualified.
  const name = hostname.replace(/\.+$/, '');
  return name === 'localhost' || LOCAL_NAME_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

function parseAbsolute(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function syntaxProblem(raw: string, url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.hostname === '') return 'must name a host';
  // Credentials in a URL end up in logs and delivery records.
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  // A fragment is never sent, so a URL with one is not what the tenant thinks it is.
  if (raw.includes('#')) return 'must not contain a fragment';
  return undefined;
}

const refuse = (reason: string): WebhookUrlCheck => ({ ok: false, reason });

/**
 * Syntactic check of a subscription URL, used when it is stored and again before each send (a URL
 * stored under looser rules must not slip through). Host names are resolved only at connect time.
 */
export function checkWebhookUrl(raw: string, options: { allowPrivate: boolean }): WebhookUrlCheck {
  if (typeof raw !== 'string') return refuse('must be an absolute URL');
  if (raw.length > MAX_URL_LENGTH) return refuse(`must be at most ${MAX_URL_LENGTH} characters`);
  const url = parseAbsolute(raw);
  if (!url) return refuse('must be an absolute URL');
  const problem = syntaxProblem(raw, url);
  if (problem) return refuse(problem);
  if (options.allowPrivate) return { ok: true, url };
  const literal = ipLiteralOf(url);
  if (literal !== undefined && isForbiddenAddress(literal)) return refuse('resolves to a private address');
  if (literal === undefined && isLocalName(url.hostname)) return refuse('points to a local host name');
  return { ok: true, url };
}

/** Resolves a host name to all its addresses (dns.promises.lookup with `all: true` in production). */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const BLOCKED_ADDRESS_CODE = 'ERR_WEBHOOK_BLOCKED_ADDRESS';

/** Raised inside the socket's lookup, so it reaches the caller as the connection's error. */
export class BlockedAddressError extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;

  constructor(hostname: string) {
    // The address itself stays out: the message lands in a tenant-visible delivery log.
    super(`${hostname} resolves to a private address`);
    this.name = 'BlockedAddressError';
  }
}

function wantedFamily(options: LookupOptions): number {
  const { family } = options;
  if (family === 'IPv4' || family === 4) return 4;
  if (family === 'IPv6' || family === 6) return 6;
  return 0;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

async function guardedAnswer(
  resolve: Resolve,
  allowPrivate: boolean,
  hostname: string,
  family: number,
): Promise<LookupAddress[]> {
  const answers = await resolve(hostname);
  // Every answer is checked, not just the one used: a mixed answer is a rebinding attempt.
  if (!allowPrivate && answers.some((answer) => isForbiddenAddress(answer.address))) {
    throw new BlockedAddressError(hostname);
  }
  const usable = family === 0 ? answers : answers.filter((answer) => answer.family === family);
  if (usable.length === 0) throw notFound(hostname);
  return usable.map(({ address, family: f }) => ({ address, family: f }));
}

/**
 * A `lookup` for net/tls.connect that resolves once, checks the answer and hands exactly the checked
 * addresses to the socket. A separate check followed by the socket's own lookup would ask DNS twice,
 * and a rebinding server could answer public the first time and private the second.
 */
export function createGuardedLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    guardedAnswer(resolve, allowPrivate, hostname, wantedFamily(options)).then(
      (addresses) => {
        const first = addresses[0]!;
        // net asks for every address when it races families (autoSelectFamily), else for one.
        process.nextTick(() =>
          options.all ? callback(null, addresses) : callback(null, first.address, first.family),
        );
      },
      (error: NodeJS.ErrnoException) => process.nextTick(() => callback(error, '', 0)),
    );
  };
}
