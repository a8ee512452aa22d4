import { describe, expect, test } from "bun:test";
import { forbiddenAddress, OutboundGuard, parseIpv4 } from "../../../adapters/delivery/outbound-guard";

const publicName = async () => [{ address: "93.184.216.34", family: 4 as const }];

describe("forbiddenAddress", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["0x7f000001", "loopback"],
    ["2130706433", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["0x7f.1", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["0:0:0:0:0:ffff:7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b:1::7f00:1", "local-use NAT64"],
    ["64:ff9b:1:7f00:1::", "local-use NAT64"],
    ["64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "local-use NAT64"],
    ["2002:7f00:1::", "loopback"],
    ["169.254.169.254", "link-local"],
    ["::ffff:169.254.169.254", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["fd12:3456::1", "unique local"],
    ["0.0.0.0", "this network"],
    ["0", "this network"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
  ])("%s is refused as %s", (address, kind) => {
    expect(forbiddenAddress(address)).toContain(kind);
  });

  // docs/security.md#outbound-requests-delivery-and-webhook-urls: an allow-list of global unicast; every block of the IANA special-purpose registries is refused.
  test.each([
    ["64:ff9b::808:808", "NAT64"],
    ["64:ff9b:ffff::1", "NAT64"],
    ["64:ff9b:ffff:ffff:ffff:ffff:ffff:ffff", "NAT64"],
    ["::ffff:8.8.8.8", "IPv4-mapped"],
    ["100::1", "discard-only"],
    ["100::ffff:ffff:ffff:ffff", "discard-only"],
    ["2001:db8::1", "documentation"],
    ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "documentation"],
    ["3fff::1", "documentation"],
    ["2001::1", "Teredo"],
    ["2001:1ff::1", "IETF protocol assignment"],
    ["2002:808:808::1", "6to4"],
    ["2620:4f:8000::1", "AS112"],
    ["5f00::1", "segment routing"],
    ["4000::1", "not a global unicast"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["192.0.0.0", "192.0.0.0/24"],
    ["192.0.0.9", "192.0.0.0/24"],
    ["192.0.0.255", "192.0.0.0/24"],
    ["192.0.2.7", "documentation"],
    ["192.31.196.1", "AS112"],
    ["192.52.193.1", "AMT"],
    ["192.88.99.1", "6to4 relay"],
    ["192.175.48.1", "AS112"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.1", "documentation"],
    ["203.0.113.1", "documentation"],
    ["240.0.0.1", "reserved"],
    ["254.255.255.254", "reserved"],
    ["255.255.255.255", "reserved"],
  ])("%s is refused (%s)", (address, kind) => {
    expect(forbiddenAddress(address)).toContain(kind);
  });

  test.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "2a00:1450:4001::1", "2001:4860:4860::8888", "100.128.0.1", "172.32.0.1", "198.20.0.1", "192.0.1.1", "223.255.255.254"])("%s is public", (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });

  test("IPv4 spellings parse to the same 32-bit value, and out-of-range parts are no address", () => {
    for (const spelling of ["127.0.0.1", "127.1", "127.0.1", "0x7f000001", "2130706433", "0177.0.0.01", "0x7F.0.0.1"]) expect(parseIpv4(spelling)).toBe(0x7f000001);
    for (const bad of ["256.0.0.1", "1.2.3.4.5", "127.0.0.0xg", "4294967296", "example.com", ""]) expect(parseIpv4(bad)).toBeUndefined();
  });
});

describe("OutboundGuard", () => {
  test("a name is refused when any of its addresses is private (a mixed answer could be steered)", async () => {
    const guard = new OutboundGuard({ allowPrivate: false, requireHttps: false, resolver: async () => [{ address: "93.184.216.34", family: 4 }, { address: "10.1.2.3", family: 4 }] });
    expect(await guard.check("http://mixed.example/hook")).toEqual({ ok: false, reason: "must not resolve to a private address (10.0.0.0/8); for development on one machine, start the service with OUTBOUND_ALLOW_PRIVATE=1" });
  });

  test("a public name is allowed and pinned to the address that was checked", async () => {
    const guard = new OutboundGuard({ allowPrivate: false, requireHttps: false, resolver: publicName });
    const result = await guard.check("http://partner.example:8080/farm-in?x=1");
    expect(result.ok && result.target).toMatchObject({ host: "partner.example", address: "93.184.216.34", family: 4 });
  });

  test("in production a public target must use https; OUTBOUND_ALLOW_PRIVATE lifts both rules", async () => {
    const production = new OutboundGuard({ allowPrivate: false, requireHttps: true, resolver: publicName });
    expect(await production.check("http://partner.example/")).toEqual({ ok: false, reason: "must use https" });
    expect((await production.check("https://partner.example/")).ok).toBe(true);
    const lifted = new OutboundGuard({ allowPrivate: true, requireHttps: true });
    expect((await lifted.check("http://127.0.0.1:9/")).ok).toBe(true);
  });

  test("the system resolver's answer for localhost is refused; a name that does not resolve is refused at send, accepted on save", async () => {
    const guard = new OutboundGuard({ allowPrivate: false, requireHttps: false });
    expect(await guard.problem("http://localhost:8080/")).toBe("must not resolve to a loopback address; for development on one machine, start the service with OUTBOUND_ALLOW_PRIVATE=1");
    expect(await guard.check("http://no-such-host.invalid/")).toMatchObject({ ok: false, reason: "has a host name that does not resolve" });
    expect(await guard.problem("http://no-such-host.invalid/")).toBeUndefined();
  });

  test("a host name whose lookup never answers is refused after the lookup timeout", async () => {
    const guard = new OutboundGuard({ allowPrivate: false, requireHttps: false, resolveTimeoutMs: 100, resolver: () => new Promise(() => {}) });
    const started = performance.now();
    expect(await guard.check("https://slow-dns.example/")).toMatchObject({ ok: false, reason: "has a host name that does not resolve" });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
