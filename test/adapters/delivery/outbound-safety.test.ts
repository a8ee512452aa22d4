import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { runCli, tempDir } from "../../support/process";
import { integrate, lookup, parties, regularTrip, sendTrip } from "../../support/trips";
import type { Resolver } from "../../../adapters/delivery/outbound-guard";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function harness(options: Parameters<typeof createHarness>[0]): Harness {
  const h = createHarness({ delivery: FAST_DELIVERY, ...options });
  cleanups.push(() => h.close());
  return h;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(20);
  }
}

/** Every spelling of an internal target an attacker might try, and the range each reaches. */
const INTERNAL_TARGETS: Array<[string, string]> = [
  ["http://127.0.0.1:8080/", "loopback"],
  ["http://127.1/", "loopback"],
  ["http://0x7f000001/", "loopback"],
  ["http://2130706433/", "loopback"],
  ["http://0177.0.0.1/", "loopback"],
  ["http://[::ffff:127.0.0.1]/", "loopback"],
  ["http://[::1]:3000/", "loopback"],
  ["http://169.254.169.254/latest/meta-data/", "link-local"],
  ["http://10.0.0.1/", "private"],
  ["http://192.168.0.10/", "private"],
  ["http://100.64.0.1/", "carrier-grade NAT"],
  ["http://[fd00::1]/", "unique local"],
  ["http://[64:ff9b::a9fe:a9fe]/", "link-local"],
  ["http://[64:ff9b:1::a9fe:a9fe]/", "local-use NAT64"],
  ["http://[64:ff9b:1:a9fe:a9:fe00::]/", "local-use NAT64"],
  ["http://nat64.attacker.example/", "local-use NAT64"],
  ["http://0.0.0.0:3000/", "this network"],
  ["http://localhost:3000/", "loopback"],
  ["http://metadata.attacker.example/", "link-local"],
  // docs/security.md#outbound-requests-delivery-and-webhook-urls: the guard is an allow-list of global unicast (special-purpose registry blocks refused whole).
  ["http://[64:ff9b::808:808]/", "NAT64"],
  ["http://[100::1]/", "discard-only"],
  ["http://[2001:db8::1]/", "documentation"],
  ["http://192.0.0.9/", "192.0.0.0/24"],
  ["http://198.18.0.1/", "benchmarking"],
  ["http://240.0.0.1/", "reserved"],
];

// "metadata.attacker.example" stands for a public name an attacker points at the metadata service.
const attackerDns: Resolver = async (host) =>
  host === "metadata.attacker.example"
    ? [{ address: "169.254.169.254", family: 4 }]
    : host === "nat64.attacker.example"
      ? [{ address: "64:ff9b:1::7f00:1", family: 6 }]
      : [{ address: "127.0.0.1", family: 4 }];

describe("outbound guard (OUTBOUND_ALLOW_PRIVATE off)", () => {
  test.each(INTERNAL_TARGETS)("saving %s as delivery or webhook URL is a 400 naming the field (%s)", async (url, kind) => {
    const h = harness({ outboundAllowPrivate: false, resolver: attackerDns });
    const { provider } = await parties(h);
    const auth = { authorization: `Bearer ${provider.jwt}` };
    for (const field of ["deliveryUrl", "webhookUrl"]) {
      const res = await h.request("PUT", "/api/company/integration", { headers: auth, body: { [field]: url } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_FAILED");
      expect(res.body.errors).toEqual([{ field, message: expect.stringContaining(kind) }]);
    }
    const kept = await h.request("GET", "/api/company/integration", { headers: auth });
    expect(kept.body.data).toMatchObject({ deliveryUrl: null, webhookUrl: null });
  });

  test("a name that was public when saved and resolves to loopback at send (DNS rebinding) is not contacted", async () => {
    const rx = startReceiver();
    cleanups.push(rx.stop);
    let lookups = 0;
    const rebinding: Resolver = async () => (++lookups === 1 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }]);
    const h = harness({ outboundAllowPrivate: false, resolver: rebinding });
    const { requester, provider } = await parties(h);
    const port = new URL(rx.url).port;
    const put = await integrate(h, provider, { deliveryUrl: `http://rebind.example:${port}/farm-in` });
    expect(put.status).toBe(200);
    h.services.worker.start();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(sent.status).toBe(200);
    const errorsOf = async () => (await lookup(h, provider, sent.body.transactionId)).body.data.tripPacket.transactionErrors as Array<{ message?: string }>;
    await until(async () => (await errorsOf()).length >= 1);
    const [first] = await errorsOf();
    expect(JSON.stringify(first)).toContain("must not resolve to a loopback address");
    expect(JSON.stringify(first)).not.toContain("127.0.0.1");
    await Bun.sleep(200);
    expect(rx.received).toHaveLength(0);
  });

  test("with NODE_ENV=production a public delivery URL must be https (400 naming the field)", async () => {
    const h = harness({ outboundAllowPrivate: false, production: true, resolver: async () => [{ address: "93.184.216.34", family: 4 }] });
    const { provider } = await parties(h);
    const auth = { authorization: `Bearer ${provider.jwt}` };
    const plain = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: "http://partner.example/hooks" } });
    expect(plain.status).toBe(400);
    expect(plain.body.errors).toEqual([{ field: "webhookUrl", message: "must use https" }]);
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: "https://partner.example/hooks" } })).status).toBe(200);
  });

  test("the CLI refuses a loopback delivery URL, naming the field (exit 2)", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const h = createHarness({ dbPath });
    const c = await h.registerCompany();
    h.close();
    const r = await runCli(["company", "set-integration", c.netid, "--delivery-url", "http://0x7f000001:8080/"], { ...h.cliEnv, OUTBOUND_ALLOW_PRIVATE: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("deliveryUrl: must not point to a loopback address");
  });
});

describe("outbound requests", () => {
  test("a redirect is never followed: a partner answering 302 to a loopback address is a failed attempt and the target gets nothing", async () => {
    const internal = startReceiver();
    cleanups.push(internal.stop);
    const redirecting = startReceiver(() => new Response(null, { status: 302, headers: { location: `${internal.url}/admin` } }));
    cleanups.push(redirecting.stop);
    const h = harness({});
    const { requester, provider } = await parties(h);
    expect((await integrate(h, provider, { deliveryUrl: `${redirecting.url}/farm-in` })).status).toBe(200);
    h.services.worker.start();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    await redirecting.waitFor(2);
    const errors = (await lookup(h, provider, sent.body.transactionId)).body.data.tripPacket.transactionErrors;
    expect(JSON.stringify(errors)).toContain("answered HTTP 302");
    expect(internal.received).toHaveLength(0);
  });

  test("the request goes to the address the guard checked, with the URL's host name in the Host header", async () => {
    const rx = startReceiver();
    cleanups.push(rx.stop);
    const asked: string[] = [];
    // ".invalid" never resolves through the system: the request can only reach the receiver through the pinned address.
    const h = harness({ resolver: async (host) => (asked.push(host), [{ address: "127.0.0.1", family: 4 }]) });
    const { requester, provider } = await parties(h);
    const port = new URL(rx.url).port;
    expect((await integrate(h, provider, { deliveryUrl: `http://partner.invalid:${port}/farm-in` })).status).toBe(200);
    h.services.worker.start();
    await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const [got] = await rx.waitFor(1);
    expect(got.headers.host).toBe(`partner.invalid:${port}`);
    expect(got.path).toBe("/farm-in");
    // One lookup on save, one at the send: no second resolution between the check and the connection.
    expect(asked).toEqual(["partner.invalid", "partner.invalid"]);
  });
});
