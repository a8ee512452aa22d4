import { afterAll, describe, expect, test } from "bun:test";
import { OutboundGuard } from "../../../adapters/delivery/outbound-guard";
import { SearchGeocoder, type SearchGeocoderOptions } from "../../../adapters/geocoder/search-geocoder";
import { placesOfAnswer } from "../../../adapters/geocoder/search-answer";

/**
 * The geocoder adapter (docs/places.md#the-geocoder) against real HTTP servers on 127.0.0.1: a Photon-shaped and a
 * Nominatim-shaped `/search`, one that answers too late, one that fails; the outbound guard in front of each request;
 * the bounded cache.
 */

const PARK_AVE = { lat: 40.7536, lon: -73.9767 };

/** Photon: a GeoJSON FeatureCollection, coordinates [lon, lat]. */
const photonAnswer = (q: string) => ({
  type: "FeatureCollection",
  features: q.toLowerCase().includes("park ave")
    ? [
        {
          type: "Feature",
          geometry: { type: "Point", coordinates: [PARK_AVE.lon, PARK_AVE.lat] },
          properties: { name: "MetLife Building", housenumber: "200", street: "Park Avenue", city: "New York", state: "New York", country: "United States", countrycode: "US" },
        },
        { type: "Feature", geometry: { type: "Point", coordinates: [-73.99, 40.74] }, properties: { street: "Park Avenue South", city: "New York", countrycode: "US" } },
      ]
    : [],
});

/** Nominatim (json/jsonv2): an array of places, lat and lon as strings. */
const nominatimAnswer = (q: string) =>
  q.toLowerCase().includes("park ave")
    ? [{ place_id: 1, lat: String(PARK_AVE.lat), lon: String(PARK_AVE.lon), display_name: "200, Park Avenue, Manhattan, New York, United States", address: { country_code: "us" } }]
    : [];

/** A `/search` server on loopback answering with `answer(q)` (after `delayMs`); it counts the searches it got. */
function searchServer(answer: (q: string) => unknown, options: { delayMs?: number; status?: number; raw?: string } = {}) {
  const seen: URL[] = [];
  const agents: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      seen.push(url);
      agents.push(request.headers.get("user-agent") ?? "");
      if (options.delayMs) await Bun.sleep(options.delayMs);
      if (options.raw !== undefined) return new Response(options.raw, { status: options.status ?? 200, headers: { "content-type": "text/html" } });
      return Response.json(answer(url.searchParams.get("q") ?? ""), { status: options.status ?? 200 });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/search`, seen, agents };
}
const servers: Array<ReturnType<typeof Bun.serve>> = [];
afterAll(() => servers.forEach((s) => s.stop(true)));

const loopbackGuard = new OutboundGuard({ allowPrivate: true, requireHttps: false });
const geocoder = (url: string, more: Partial<SearchGeocoderOptions> = {}) => new SearchGeocoder({ url, guard: loopbackGuard, timeoutMs: 1000, ...more });

describe("a Photon- or Nominatim-compatible /search (docs/places.md#the-geocoder)", () => {
  test("Photon's FeatureCollection: each place with its label and country, best first", async () => {
    const photon = searchServer(photonAnswer);
    const places = await geocoder(photon.url).search("200 Park Ave, New York", 5);
    expect(places).toEqual([
      { ...PARK_AVE, label: "MetLife Building, 200 Park Avenue, New York, United States", country: "US" },
      { lat: 40.74, lon: -73.99, label: "Park Avenue South, New York", country: "US" },
    ]);
    expect(photon.seen[0].searchParams.get("q")).toBe("200 Park Ave, New York");
    expect(photon.seen[0].searchParams.get("limit")).toBe("5");
    // Public geocoders (Nominatim's usage policy) ask every client to name itself.
    expect(photon.agents[0]).toBe("TripSwitch-Geocoder/1.0");
  });

  test("Nominatim's array of places with lat/lon strings; the URL's own parameters kept", async () => {
    const nominatim = searchServer(nominatimAnswer);
    const places = await geocoder(`${nominatim.url}?format=jsonv2&addressdetails=1`).search("200 Park Ave", 1);
    expect(places).toEqual([{ ...PARK_AVE, label: "200, Park Avenue, Manhattan, New York, United States", country: "US" }]);
    expect(nominatim.seen[0].searchParams.get("format")).toBe("jsonv2");
    expect(nominatim.seen[0].searchParams.get("q")).toBe("200 Park Ave");
  });

  test("nothing found is [] from either shape; a shape that is neither is no answer", () => {
    expect(placesOfAnswer([])).toEqual([]);
    expect(placesOfAnswer({ type: "FeatureCollection", features: [] })).toEqual([]);
    expect(placesOfAnswer({ error: "Unable to geocode" })).toBeUndefined();
    // Out-of-range or missing coordinates are left out, never placed at 0,0.
    expect(placesOfAnswer([{ lat: "91", lon: "0" }, { lat: "", lon: "" }, { lat: "1.5", lon: "2.5", display_name: "x" }])).toEqual([{ lat: 1.5, lon: 2.5, label: "x" }]);
  });

  test("answers are cached: the same search (any case or spacing) asks once, and searches under way are shared", async () => {
    const photon = searchServer(photonAnswer, { delayMs: 50 });
    const g = geocoder(photon.url);
    const [a, b] = await Promise.all([g.search("200 Park Ave", 1), g.search("200  park ave", 1)]);
    expect(a).toEqual(b);
    expect(await g.search("200 PARK AVE", 5)).toHaveLength(2);
    expect(photon.seen).toHaveLength(1);
    // Nothing found is cached too, for less long.
    expect(await g.search("Qwxz Street", 1)).toEqual([]);
    expect(await g.search("Qwxz Street", 1)).toEqual([]);
    expect(photon.seen).toHaveLength(2);
  });

  test("the cache is bounded: past its size the least recently used search is asked again; an expired one too", async () => {
    const photon = searchServer(photonAnswer);
    let now = 1_000_000;
    const g = geocoder(photon.url, { cacheSize: 2, now: () => now, hitTtlMs: 60_000 });
    await g.search("1 Park Ave", 1);
    await g.search("2 Park Ave", 1);
    await g.search("1 Park Ave", 1); // 1 is now the most recent
    await g.search("3 Park Ave", 1); // 2 goes
    expect(photon.seen).toHaveLength(3);
    await g.search("1 Park Ave", 1);
    expect(photon.seen).toHaveLength(3);
    await g.search("2 Park Ave", 1);
    expect(photon.seen).toHaveLength(4);
    now += 60_001;
    await g.search("2 Park Ave", 1);
    expect(photon.seen).toHaveLength(5);
  });

  test("a slow geocoder: [] within the timeout, then a pause before it is asked again (told once)", async () => {
    const slow = searchServer(photonAnswer, { delayMs: 2000 });
    const problems: string[] = [];
    let now = 5_000_000;
    const g = geocoder(slow.url, { timeoutMs: 200, onProblem: (r) => problems.push(r), now: () => now, backoffMs: 30_000 });
    const started = performance.now();
    expect(await g.search("200 Park Ave", 1)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(problems).toEqual([expect.stringContaining("no answer within 200 ms")]);
    expect(await g.search("201 Park Ave", 1)).toEqual([]);
    expect(slow.seen).toHaveLength(1);
    now += 30_001;
    await g.search("202 Park Ave", 1);
    expect(slow.seen).toHaveLength(2);
  });

  test("a failing geocoder (500, HTML, a closed port) answers [] and says why, never throws", async () => {
    const failing = searchServer(photonAnswer, { status: 500 });
    const html = searchServer(photonAnswer, { raw: "<html>search</html>" });
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const closedUrl = `http://127.0.0.1:${closed.port}/search`;
    closed.stop(true);
    for (const [url, reason] of [
      [failing.url, "answered HTTP 500"],
      [html.url, "not JSON"],
      [closedUrl, "connection failed"],
    ]) {
      const problems: string[] = [];
      expect(await geocoder(url, { onProblem: (r) => problems.push(r) }).search("200 Park Ave", 1)).toEqual([]);
      expect(problems).toEqual([expect.stringContaining(reason)]);
    }
  });

  test("the outbound guard: a loopback geocoder is refused (nothing sent) unless private addresses are allowed", async () => {
    const photon = searchServer(photonAnswer);
    const problems: string[] = [];
    const guarded = new SearchGeocoder({
      url: photon.url,
      guard: new OutboundGuard({ allowPrivate: false, requireHttps: false }),
      timeoutMs: 1000,
      onProblem: (r) => problems.push(r),
    });
    expect(await guarded.search("200 Park Ave", 1)).toEqual([]);
    expect(photon.seen).toHaveLength(0);
    expect(problems).toEqual([expect.stringContaining("GEOCODER_URL must not point to a loopback address")]);
    // A name that resolves to a private address is refused the same way (the address is checked, then pinned).
    const named = new SearchGeocoder({
      url: `http://geocoder.example:${new URL(photon.url).port}/search`,
      guard: new OutboundGuard({ allowPrivate: false, requireHttps: false, resolver: async () => [{ address: "127.0.0.1", family: 4 }] }),
      timeoutMs: 1000,
    });
    expect(await named.search("200 Park Ave", 1)).toEqual([]);
    expect(photon.seen).toHaveLength(0);
    // Allowed (OUTBOUND_ALLOW_PRIVATE=1): the same name reaches the pinned loopback address.
    const allowed = new SearchGeocoder({
      url: `http://geocoder.example:${new URL(photon.url).port}/search`,
      guard: new OutboundGuard({ allowPrivate: true, requireHttps: false, resolver: async () => [{ address: "127.0.0.1", family: 4 }] }),
      timeoutMs: 1000,
    });
    expect(await allowed.search("200 Park Ave", 1)).toHaveLength(1);
    expect(photon.seen).toHaveLength(1);
  });
});
