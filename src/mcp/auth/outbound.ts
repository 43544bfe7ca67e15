/**
 * The fetch of everything the OAuth flow fetches because a server or an authorization server named it (protected-resource
 * metadata, authorization-server metadata, registration, token, a Client ID Metadata Document, …; docs/security.md,
 * docs/security.md "The worker: URLs it fetches"). The SDK's `auth()` does the protocol; this is the `fetchFn` it is
 * given, and it refuses:
 * - any scheme but https, and http except to a loopback host;
 * - a host that resolves to a loopback, private, shared (carrier-grade NAT), link-local, unique-local, multicast,
 *   reserved or cloud-metadata address, unless the server's config opts in (`auth.allowPrivateNetwork`). Every address
 *   the name resolves to is checked, and the connection goes to the checked address (a DNS answer that changes between
 *   the check and the connection cannot swap it);
 * - the same on every redirect, followed here one hop at a time.
 * A refusal is a TypeError (as fetch's own network errors are, so the SDK does not fall back to another URL) and is
 * remembered, so the flow fails with it even where the SDK swallowed it. The response of a failed request is remembered
 * by its status and host only: the flow names those, never the body (flow.ts).
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';

/** A resolved address, as `dns.lookup` gives it. */
export interface Resolved {
  address: string;
  family: number;
}

/**
 * Address ranges the worker does not fetch from without `auth.allowPrivateNetwork`, in CIDR notation, and what each is.
 * The first range that holds an address names it (a cloud-metadata address before the link-local range around it).
 */
const BLOCKED_RANGES: [cidr: string, what: string][] = [
  ['169.254.169.254/32', 'cloud-metadata'],
  ['100.100.100.200/32', 'cloud-metadata'],
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved (IETF protocol assignments)'],
  ['192.0.2.0/24', 'reserved (documentation)'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved (benchmarking)'],
  ['198.51.100.0/24', 'reserved (documentation)'],
  ['203.0.113.0/24', 'reserved (documentation)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['fd00:ec2::254/128', 'cloud-metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'reserved (IPv4-compatible)'],
  ['100::/64', 'reserved (discard)'],
  ['2001:db8::/32', 'reserved (documentation)'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

function v4Bits(ip: string): bigint {
  return ip.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** The 128 bits of an IPv6 address (with `::` and a dotted IPv4 tail). */
function v6Bits(ip: string): bigint {
  let text = ip.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4Bits(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const words = (s: string) => (s === '' ? [] : s.split(':'));
  const h = words(head);
  const t = tail === undefined ? [] : words(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((n, w) => (n << 16n) | BigInt(parseInt(w, 16)), 0n);
}

function inRange(bits: bigint, width: number, first: bigint, prefix: number): boolean {
  const shift = BigInt(width - prefix);
  return bits >> shift === first >> shift;
}

/** BLOCKED_RANGES parsed once: the family (4 or 6), the bits of the first address, the prefix length, what it is. */
const RANGES = BLOCKED_RANGES.map(([cidr, what]) => {
  const [first = '', prefix] = cidr.split('/');
  const family = isIP(first);
  return { family, first: family === 4 ? v4Bits(first) : v6Bits(first), prefix: Number(prefix), what };
});

/** The blocked range that holds an address (its bits, of IPv4 or IPv6): what kind of address it is. */
function blockedRange(bits: bigint, family: 4 | 6): string | undefined {
  return RANGES.find((r) => r.family === family && inRange(bits, family === 4 ? 32 : 128, r.first, r.prefix))?.what;
}

/** An IPv4 address (32 bits) as text. */
function v4Text(v4: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((v4 >> s) & 0xffn)).join('.');
}

const V6_NAT64 = v6Bits('64:ff9b::') >> 32n;
const V6_NAT64_LOCAL = v6Bits('64:ff9b:1::') >> 80n;
const V6_6TO4 = 0x2002n;
const V6_TEREDO = 0x20010000n;
const U32 = 0xffffffffn;

/**
 * The IPv4 addresses an IPv6 address carries, as a router or translator would reach them: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 2765), NAT64 with the well-known prefix
 * (`64:ff9b::/96`) or the local-use one (`64:ff9b:1::/48`, RFC 8215: the IPv4 in its /96 place), 6to4
 * (`2002:AABB:CCDD::/48`, RFC 3056) and Teredo (`2001::/32`: the server's IPv4, and the client's, XORed; RFC 4380).
 */
function embeddedV4(bits: bigint): bigint[] {
  const high96 = bits >> 32n;
  const low = bits & U32;
  if (high96 === 0xffffn || high96 === 0xffff0000n || high96 === V6_NAT64 || bits >> 80n === V6_NAT64_LOCAL) return [low];
  if (bits >> 112n === V6_6TO4) return [(bits >> 80n) & U32];
  if (bits >> 96n === V6_TEREDO) return [(bits >> 64n) & U32, low ^ U32];
  return [];
}

/**
 * What is wrong with fetching from `ip` (undefined: a public address): the kind of address it is. An IPv6 address
 * that carries an IPv4 address (mapped, translated, NAT64, 6to4, Teredo: `embeddedV4`) is judged as the IPv4 inside;
 * the local-use NAT64 prefix is refused whatever it carries (it never leaves the operator's network).
 */
export function addressProblem(ip: string): string | undefined {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) return blockedRange(v4Bits(ip), 4);
  if (family !== 6) return 'not an IP address';
  const bits = v6Bits(ip);
  for (const v4 of embeddedV4(bits)) {
    const problem = addressProblem(v4Text(v4));
    if (problem) return `${problem} (IPv4 ${v4Text(v4)} inside IPv6)`;
  }
  if (bits >> 80n === V6_NAT64_LOCAL) return 'reserved (local-use NAT64, RFC 8215)';
  return blockedRange(bits, 6);
}

/** Whether a URL's host is a loopback name or address (where plain http is allowed). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && addressProblem(host) === 'loopback';
}

/** The outside request that failed last: its host and status (never its body). */
export interface FailedRequest {
  host: string;
  status: number;
  method: string;
}

export interface OutboundOptions {
  /** The server the flow runs for (named in refusals). */
  server: string;
  /** `auth.allowPrivateNetwork`: the operator allows loopback, private, link-local, … addresses. */
  allowPrivateNetwork: boolean;
  /** A fetch to send through instead of connecting here (tests observe the requests): it gets only checked URLs. */
  base?: FetchLike;
  /** The resolver (default: the system's, every address). */
  resolve?: (host: string) => Promise<Resolved[]>;
}

/** Refused by the worker's rules: a TypeError, as fetch's network errors are. */
export class OutboundRefused extends TypeError {
  override name = 'OutboundRefused';
}

const MAX_REDIRECTS = 5;
/** OAuth documents and token responses are small: a larger answer is cut off. */
const MAX_RESPONSE_BYTES = 1 << 20;
const TIMEOUT_MS = 30_000;

const systemResolve = async (host: string): Promise<Resolved[]> => lookup(host, { all: true, verbatim: true });

/** The guarded fetch of one step of a login (flow.ts makes one per `auth()`), and what it refused or saw fail. */
export class OutboundGuard {
  /** The first refusal (its message names the server, the host and the rule). */
  refused: string | undefined;
  /** The last request, when it was answered with an error status. */
  failure: FailedRequest | undefined;

  constructor(private readonly options: OutboundOptions) {}

  readonly fetch: FetchLike = async (input, init) => {
    let url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    const follow = init?.redirect !== 'manual' && init?.redirect !== 'error';
    for (let hop = 0; ; hop++) {
      const address = await this.check(url);
      const res = this.options.base ? await this.options.base(url, { ...init, redirect: 'manual' }) : await pinnedRequest(url, address, init);
      // The last answer decides (a discovery's 404 followed by a found document is no failure).
      this.failure = res.status >= 400 ? { host: url.host, status: res.status, method } : undefined;
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      const keepsMethod = method === 'GET' || method === 'HEAD' || res.status === 307 || res.status === 308;
      if (!follow || !location || !keepsMethod || hop >= MAX_REDIRECTS) return res;
      await res.arrayBuffer().catch(() => undefined);
      url = new URL(location, url);
    }
  };

  private refuse(url: URL, why: string): never {
    const message = `server "${this.options.server}": OAuth: refused to fetch ${url.protocol}//${url.host}: ${why}`;
    this.refused ??= message;
    throw new OutboundRefused(message);
  }

  /** The address to connect to for `url`, once every rule passed. */
  private async check(url: URL): Promise<Resolved> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') this.refuse(url, `the scheme ${url.protocol} is not https`);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) this.refuse(url, 'plain http to a host that is not loopback (https is required)');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    let addresses: Resolved[];
    if (family !== 0) addresses = [{ address: host, family }];
    else {
      try {
        addresses = await (this.options.resolve ?? systemResolve)(host);
      } catch (err) {
        throw new TypeError(`cannot resolve ${url.host}: ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
      }
    }
    if (addresses.length === 0) throw new TypeError(`cannot resolve ${url.host}: no address`);
    if (!this.options.allowPrivateNetwork) {
      for (const a of addresses) {
        const problem = addressProblem(a.address);
        if (problem) {
          const where = family !== 0 ? `${host} is` : `${host} resolves to ${a.address},`;
          this.refuse(url, `${where} a ${problem} address (the server's "auth.allowPrivateNetwork": true allows it)`);
        }
      }
    }
    return addresses[0]!;
  }
}

function requestBody(body: RequestInit['body'], headers: Record<string, string>): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    return Buffer.from(body.toString(), 'utf8');
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('the OAuth fetch sends only string, form or byte bodies');
}

function responseHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  return headers;
}

/** One request to `url` over a connection to `address` (already checked), its answer read whole (bounded). */
function pinnedRequest(url: URL, address: Resolved, init: RequestInit | undefined): Promise<Response> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
  const body = requestBody(init?.body, headers);
  if (body) headers['content-length'] = String(body.length);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = request(
      url,
      {
        method: (init?.method ?? 'GET').toUpperCase(),
        headers,
        timeout: TIMEOUT_MS,
        ...(init?.signal ? { signal: init.signal } : {}),
        // The checked address, whatever a second resolution would say (TLS still checks the certificate against the host name).
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all) (callback as (e: null, a: Resolved[]) => void)(null, [address]);
          else (callback as (e: null, a: string, f: number) => void)(null, address.address, address.family);
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new TypeError(`the answer of ${url.host} is larger than ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 205 || status === 304 || method(init) === 'HEAD';
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res.headers) }));
        });
      },
    );
    req.on('timeout', () => req.destroy(new TypeError(`${url.host} did not answer in ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) =>
      reject(err instanceof TypeError ? err : new TypeError(`cannot reach ${url.host}: ${(err as NodeJS.ErrnoException).code ?? err.message}`)),
    );
    req.end(body);
  });
}

function method(init: RequestInit | undefined): string {
  return (init?.method ?? 'GET').toUpperCase();
}

/**
 * Where the protected-resource metadata a server's challenge names may be fetched from: the server's own origin, or the
 * origin its config names (`auth.resourceMetadataOrigin`). Undefined: allowed; else why not.
 */
export function resourceMetadataProblem(
  server: { name: string; url: string; auth: { resourceMetadataOrigin?: string } },
  metadataUrl: string,
): string | undefined {
  let url: URL;
  try {
    url = new URL(metadataUrl);
  } catch {
    return `server "${server.name}": OAuth: the challenge's resource_metadata is not a URL`;
  }
  const allowed = [new URL(server.url).origin, ...(server.auth.resourceMetadataOrigin ? [new URL(server.auth.resourceMetadataOrigin).origin] : [])];
  if (allowed.includes(url.origin)) return undefined;
  return (
    `server "${server.name}": OAuth: the challenge names protected-resource metadata at ${url.origin}, which is not the server's origin` +
    ` (${allowed[0]})${allowed.length > 1 ? ` nor its "auth.resourceMetadataOrigin"` : ''}: nothing is fetched from it`
  );
}
