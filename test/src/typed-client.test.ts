import { afterEach, describe, expect, test } from "bun:test";
import { treaty } from "@elysiajs/eden";
import type { App } from "../../src/app";
import { createHarness, type Harness } from "../support/harness";
import { regularTrip } from "../support/trips";

let h: Harness;
afterEach(() => h?.close());

const password = "correct horse battery staple";

/** Registers a company through the typed client and logs it in on both surfaces. */
async function signUp(api: ReturnType<typeof treaty<App>>, netid: string, coType: "CO" | "IO", phone: string) {
  const registered = await api.api.company.register.post({
    name: `${netid} Ltd`,
    netid,
    mainEmail: `ops@${netid.toLowerCase()}.example`,
    password,
    confirmPassword: password,
    mainPhone: phone,
    coType,
  });
  expect(registered.status).toBe(200);
  expect(registered.data?.data.netid).toBe(netid);
  const core = await api.api.token.post({ uid: netid, pw: password });
  expect(core.status).toBe(200);
  const platform = await api["Platform.svc"].getToken2.post({ uid: netid, pw: password });
  expect(platform.status).toBe(200);
  // getToken2 answers the JSON string it serialised itself (documented as application/json); the client parses it.
  return { jwt: core.data!.token, token: platform.data as unknown as string };
}

describe("typed client (Eden Treaty over the app's exported type)", () => {
  test("registers, logs in, adds and searches a vehicle, and sends a trip through the typed routes", async () => {
    h = createHarness();
    const api = treaty<App>(h.app);
    const requester = await signUp(api, "TYPED-BOOK", "CO", "+12125550101");
    const provider = await signUp(api, "TYPED-LIMO", "IO", "+12125550102");

    const added = await api.api.fleet.post(
      { type: "SUV", name: "Cadillac Escalade", maxPassengers: 6, maxLuggage: 5, lat: 40.6413, lon: -73.7781, airports: ["JFK"], minimum_rate: 95, hourly_rate: 85.5 },
      { headers: { authorization: `Bearer ${provider.jwt}` } },
    );
    expect(added.status).toBe(200);
    const slug: string | undefined = added.data?.data.slug;
    expect(slug).toBe("typed-limo-cadillac-escalade");
    await h.indexed();

    const found = await api.api.search.fleet.get({ query: { airports: "JFK", radius_km: "10" }, headers: { authorization: `Bearer ${requester.jwt}` } });
    expect(found.status).toBe(200);
    // Typed by the route: the client decodes the JSON answer into it.
    const page = found.data!;
    expect(page.data.total).toBe(1);
    expect(page.data.items[0].slug).toBe(slug!);

    const trip = regularTrip("TYPED-BOOK", "TYPED-LIMO") as Parameters<(typeof api)["Platform.svc"]["sendTrip"]["post"]>[0];
    // The platform `token` header is declared by the security scheme, not by the route's header schema.
    const platformHeaders = (token: string) => ({ token }) as { "idempotency-key"?: string };
    const sent = await api["Platform.svc"].sendTrip.post(trip, { headers: platformHeaders(requester.token) });
    expect(sent.status).toBe(200);
    // Idempotent operations answer JSON they serialised themselves (a string to the type system); the client parses it.
    const transactionId = (sent.data as unknown as { success: true; transactionId: string }).transactionId;
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/);

    const read = await api["Platform.svc"].getReservationByTransactionId({ transactionId }).get({ headers: platformHeaders(provider.token) });
    expect(read.status).toBe(200);
    expect((read.data as { data: { transactionId: string } }).data.transactionId).toBe(transactionId);
  });

  test("an error answer comes back as the typed client's `error` with the service's status and code", async () => {
    h = createHarness();
    const api = treaty<App>(h.app);
    const denied = await api.api.fleet.get({ headers: { authorization: "Bearer nope" } });
    expect(denied.status as number).toBe(401);
    expect(denied.data).toBeNull();
    expect((denied.error?.value as unknown as { code: string }).code).toBe("INVALID_TOKEN");
  });
});
