import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver unless a test gives its own). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** A URL that passed the guard, with the address the request must connect to (pinned: no second lookup). */
export interface CheckedTarget {
  url: URL;
  /** The host name as the URL spells it, without IPv6 brackets (Host header and TLS server name). */
  host: string;
  address: string;
  family: 4 | 6;
}

export type GuardResult = { ok: true; target: CheckedTarget } | { ok: false; reason: string; unresolved?: true };

export interface OutboundPolicy {
  /** Lifts both rules below (development and tests on loopback). */
  allowPrivate: boolean;
  /** Public targets must use https (NODE_ENV=production). */
  requireHttps: boolean;
  resolver?: Resolver;
  /** Longest wait for a host name's addresses (a partner's slow DNS must not hold a worker); default 5 s. */
  resolveTimeoutMs?: number;
}

const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Parses an IPv4 address in any spelling a URL parser or `inet_aton` accepts: dotted with 1–4 parts, each
 * decimal, octal (leading 0) or hex (0x) — `127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`. Returns the
 * 32-bit value, or undefined when the text is not an IPv4 address.
 */
export function parseIpv4(text: string): number | undefined {
  const parts = text.replace(/\.$/, "").split(".");
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isFinite(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  return values.reduce((sum, v, i) => sum + v * 256 ** (3 - i), 0) + last;
}

/** The 16 bytes of an IPv6 address (with an optional embedded dotted IPv4 tail), or undefined. */
export function parseIpv6(text: string): Uint8Array | undefined {
  let s = text.replace(/^\[|\]$/g, "").toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) !== 6) return undefined;
  const lastColon = s.lastIndexOf(":");
  if (s.slice(lastColon + 1).includes(".")) {
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.includes("::") ? s.split("::") : [s, undefined];
  const words = (p: string) => (p ? p.split(":").filter((w) => w !== "").map((w) => parseInt(w, 16)) : []);
  const left = words(head);
  const right = rest === undefined ? [] : words(rest);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  const all = [...left, ...Array(missing).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

/**
 * The IANA IPv4 Special-Purpose Address Registry (every entry, whatever its "globally reachable" column says), with
 * multicast (224.0.0.0/4) beside it: an address outside all of these is global unicast. 240.0.0.0/4 covers the
 * limited broadcast address 255.255.255.255/32.
 */
const V4_RANGES: Array<[number, number, string]> = [
  [0x00000000, 8, "a 'this network' address (0.0.0.0/8)"],
  [0x0a000000, 8, "a private address (10.0.0.0/8)"],
  [0x64400000, 10, "a carrier-grade NAT address (100.64.0.0/10)"],
  [0x7f000000, 8, "a loopback address"],
  [0xa9fe0000, 16, "a link-local address (169.254.0.0/16, cloud metadata)"],
  [0xac100000, 12, "a private address (172.16.0.0/12)"],
  [0xc0000000, 24, "a special-purpose address (192.0.0.0/24)"],
  [0xc0000200, 24, "a documentation address (192.0.2.0/24)"],
  [0xc01fc400, 24, "an AS112 address (192.31.196.0/24)"],
  [0xc034c100, 24, "an AMT address (192.52.193.0/24)"],
  [0xc0586300, 24, "a 6to4 relay anycast address (192.88.99.0/24)"],
  [0xc0a80000, 16, "a private address (192.168.0.0/16)"],
  [0xc0af3000, 24, "an AS112 address (192.175.48.0/24)"],
  [0xc6120000, 15, "a benchmarking address (198.18.0.0/15)"],
  [0xc6336400, 24, "a documentation address (198.51.100.0/24)"],
  [0xcb007100, 24, "a documentation address (203.0.113.0/24)"],
  [0xe0000000, 4, "a multicast address"],
  [0xf0000000, 4, "a reserved address (240.0.0.0/4)"],
];

function v4Problem(value: number): string | undefined {
  for (const [base, bits, name] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((value & mask) >>> 0) === base) return name;
  }
  return undefined;
}

const v4Of = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;

/**
 * The IANA IPv6 Special-Purpose Address Registry's blocks inside global unicast (2000::/3), most specific first
 * where they nest; the blocks outside 2000::/3 (::/128, ::1, the IPv4-embedding forms, 64:ff9b::/32, 100::/64,
 * 5f00::/16, fc00::/7, fe80::/10) fall to the allow-list itself, with names given in `v6Problem`.
 */
const V6_RANGES: Array<[string, number, string]> = [
  ["2001::", 32, "a Teredo address (2001::/32)"],
  ["2001::", 23, "an IETF protocol assignment address (2001::/23)"],
  ["2001:db8::", 32, "a documentation address (2001:db8::/32)"],
  ["2002::", 16, "a 6to4 address (2002::/16)"],
  ["2620:4f:8000::", 48, "an AS112 address (2620:4f:8000::/48)"],
  ["3fff::", 20, "a documentation address (3fff::/20)"],
];

const V6_PARSED = V6_RANGES.map(([prefix, bits, name]) => ({ bytes: parseIpv6(prefix)!, bits, name }));

function inPrefix(b: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((b[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}

function v6Problem(b: Uint8Array): string | undefined {
  const zeroUpTo = (n: number) => b.subarray(0, n).every((x) => x === 0);
  if (zeroUpTo(15) && b[15] <= 1) return b[15] === 1 ? "a loopback address" : "the unspecified address";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d) forms: the
  // embedded address's problem is named when it has one; the form is refused either way (special-purpose).
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return v4Problem(v4Of(b, 12)) ?? "an IPv4-mapped address (::ffff:0:0/96)";
  if (zeroUpTo(12)) return v4Problem(v4Of(b, 12)) ?? "a deprecated IPv4-compatible address";
  if (zeroUpTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return v4Problem(v4Of(b, 12)) ?? "an IPv4-translated address";
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address; local-use NAT64 (64:ff9b:1::/48) embeds it wherever
    // the operator's prefix length puts it. Every address of 64:ff9b::/32 is refused.
    if (b.subarray(4, 12).every((x) => x === 0)) return v4Problem(v4Of(b, 12)) ?? "a NAT64 address (64:ff9b::/96)";
    if (b[4] === 0 && b[5] === 1) return "a local-use NAT64 address (64:ff9b:1::/48)";
    return "a NAT64 address (64:ff9b::/32)";
  }
  // 6to4 (2002::/16) carries an IPv4 address in bytes 2–5.
  if (b[0] === 0x20 && b[1] === 0x02) return v4Problem(v4Of(b, 2)) ?? "a 6to4 address (2002::/16)";
  if (b[0] === 0x01 && b.subarray(1, 8).every((x) => x === 0)) return "a discard-only address (100::/64)";
  if ((b[0] & 0xfe) === 0xfc) return "a unique local address (fc00::/7)";
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return "a link-local address (fe80::/10)";
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return "a site-local address (fec0::/10)";
  if (b[0] === 0xff) return "a multicast address";
  if (b[0] === 0x5f && b[1] === 0) return "a segment routing address (5f00::/16)";
  // Allow-list: only global unicast (2000::/3) passes.
  if ((b[0] & 0xe0) !== 0x20) return "not a global unicast address";
  for (const { bytes, bits, name } of V6_PARSED) if (inPrefix(b, bytes, bits)) return name;
  return undefined;
}

/**
 * Why an address (IPv4 in any spelling, or IPv6 with or without brackets) must not be a delivery target, or
 * undefined when it is global unicast: an allow-list, refusing every block of the IANA IPv4 and IPv6
 * special-purpose registries (loopback, private, link-local, CGNAT, ULA, NAT64, documentation, benchmarking,
 * reserved, …), multicast, and any IPv6 address outside 2000::/3. Text that is no IP address at all is refused too.
 */
export function forbiddenAddress(text: string): string | undefined {
  const v4 = text.includes(":") ? undefined : parseIpv4(text);
  if (v4 !== undefined) return v4Problem(v4);
  const v6 = parseIpv6(text);
  if (v6) return v6Problem(v6);
  return "not an IP address";
}

/** The host of a URL as a literal address when it is one (any IPv4 spelling, bracketed IPv6), else undefined. */
function literalAddress(hostname: string): ResolvedAddress | undefined {
  if (hostname.startsWith("[")) {
    const bytes = parseIpv6(hostname);
    return bytes ? { address: hostname.slice(1, -1), family: 6 } : undefined;
  }
  const v4 = parseIpv4(hostname);
  if (v4 === undefined) return undefined;
  return { address: [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join("."), family: 4 };
}

/**
 * Decides whether the service may send to a URL: resolves its host and refuses when any address is private
 * or special (a name with one public and one private address could be steered to the private one), and, in
 * production, when a public target is not https. The answer names the address to connect to, so the request
 * cannot be re-resolved elsewhere (DNS rebinding).
 */
export class OutboundGuard {
  private readonly resolver: Resolver;

  constructor(readonly policy: OutboundPolicy) {
    this.resolver = policy.resolver ?? systemResolver;
  }

  /** Outside production, a refused private target says how to allow one for development on one machine. */
  private get developmentHint(): string {
    return this.policy.requireHttps ? "" : "; for development on one machine, start the service with OUTBOUND_ALLOW_PRIVATE=1";
  }

  async check(raw: string): Promise<GuardResult> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: "is not an absolute URL" };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "must be an http or https URL" };
    const host = url.hostname.replace(/^\[|\]$/g, "");
    let addresses: ResolvedAddress[];
    const literal = literalAddress(url.hostname);
    if (literal) addresses = [literal];
    else {
      try {
        addresses = await withTimeout(this.resolver(host.replace(/\.$/, "")), this.policy.resolveTimeoutMs ?? 5000);
      } catch {
        return { ok: false, reason: "has a host name that does not resolve", unresolved: true };
      }
      if (addresses.length === 0) return { ok: false, reason: "has a host name that does not resolve", unresolved: true };
    }
    if (!this.policy.allowPrivate) {
      for (const a of addresses) {
        const problem = forbiddenAddress(a.address);
        if (problem) return { ok: false, reason: (literal ? `must not point to ${problem}` : `must not resolve to ${problem}`) + this.developmentHint };
      }
      if (this.policy.requireHttps && url.protocol !== "https:") return { ok: false, reason: "must use https" };
    }
    return { ok: true, target: { url, host, address: addresses[0].address, family: addresses[0].family } };
  }

  /**
   * The reason a URL may not be saved as a target, or undefined when it may. A name that does not resolve
   * yet is accepted (a partner may register its endpoint before its DNS): each send checks it again.
   */
  async problem(url: string): Promise<string | undefined> {
    const result = await this.check(url);
    return result.ok || result.unresolved ? undefined : result.reason;
  }
}

/** The promise's value, or a rejection once `ms` have passed. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("lookup timed out")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
