import { Elysia } from "elysia";
import { gzipSync } from "node:zlib";
import { detailedLand, worldPath } from "./basemap";
// The console's files as text, embedded with the code (also inside the compiled binary): no CDN, no network at run time.
import indexHtml from "./assets/index.html" with { type: "text" };
import styleCss from "./assets/style.css" with { type: "text" };
import appJs from "./assets/app.js" with { type: "text" };
import apiJs from "./assets/api.js" with { type: "text" };
import domJs from "./assets/dom.js" with { type: "text" };
import mapJs from "./assets/map.js" with { type: "text" };
import csvJs from "./assets/csv.js" with { type: "text" };
import fleetJs from "./assets/fleet.js" with { type: "text" };
import fleetFormsJs from "./assets/fleet-forms.js" with { type: "text" };
import bookingsJs from "./assets/bookings.js" with { type: "text" };
import bookingJs from "./assets/booking.js" with { type: "text" };
import settingsJs from "./assets/settings.js" with { type: "text" };
import deliveriesJs from "./assets/deliveries.js" with { type: "text" };
import partnersJs from "./assets/partners.js" with { type: "text" };
import liveJs from "./assets/live.js" with { type: "text" };
import formatJs from "./assets/format.js" with { type: "text" };
import newtripJs from "./assets/newtrip.js" with { type: "text" };
import ratesJs from "./assets/rates.js" with { type: "text" };
import availabilityJs from "./assets/availability.js" with { type: "text" };
import breakdownJs from "./assets/breakdown.js" with { type: "text" };
import statementsJs from "./assets/statements.js" with { type: "text" };
import fieldErrorsJs from "./assets/field-errors.js" with { type: "text" };
import offersJs from "./assets/offers.js" with { type: "text" };
import flightJs from "./assets/flight.js" with { type: "text" };
import placePickerJs from "./assets/place-picker.js" with { type: "text" };
// The map library (Leaflet, and its marker clustering), from node_modules, embedded the same way.
import leafletJs from "leaflet/dist/leaflet.js" with { type: "text" };
import leafletCss from "leaflet/dist/leaflet.css" with { type: "text" };
import clusterJs from "leaflet.markercluster/dist/leaflet.markercluster.js" with { type: "text" };
import clusterCss from "leaflet.markercluster/dist/MarkerCluster.css" with { type: "text" };
import clusterDefaultCss from "leaflet.markercluster/dist/MarkerCluster.Default.css" with { type: "text" };
import { DEFAULT_MAP_TILES, isPolicyOrigin, type MapTiles } from "./tiles";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
/** A library file without its source-map comment (the maps are not shipped). */
const noSourceMap = (text: string) => text.replace(/\n\/[/*]# sourceMappingURL=[^\n]*\s*$/, "\n");
const ASSETS: Record<string, { file: string; type: string }> = {
  "style.css": { file: styleCss, type: "text/css; charset=utf-8" },
  "app.js": { file: appJs, type: JS },
  "api.js": { file: apiJs, type: JS },
  "dom.js": { file: domJs, type: JS },
  "map.js": { file: mapJs, type: JS },
  "csv.js": { file: csvJs, type: JS },
  "fleet.js": { file: fleetJs, type: JS },
  "fleet-forms.js": { file: fleetFormsJs, type: JS },
  "bookings.js": { file: bookingsJs, type: JS },
  "booking.js": { file: bookingJs, type: JS },
  "settings.js": { file: settingsJs, type: JS },
  "deliveries.js": { file: deliveriesJs, type: JS },
  "partners.js": { file: partnersJs, type: JS },
  "live.js": { file: liveJs, type: JS },
  "format.js": { file: formatJs, type: JS },
  "newtrip.js": { file: newtripJs, type: JS },
  "rates.js": { file: ratesJs, type: JS },
  "availability.js": { file: availabilityJs, type: JS },
  "breakdown.js": { file: breakdownJs, type: JS },
  "statements.js": { file: statementsJs, type: JS },
  "field-errors.js": { file: fieldErrorsJs, type: JS },
  "offers.js": { file: offersJs, type: JS },
  "flight.js": { file: flightJs, type: JS },
  "place-picker.js": { file: placePickerJs, type: JS },
  "leaflet.js": { file: noSourceMap(leafletJs), type: JS },
  "leaflet.css": { file: leafletCss, type: CSS },
  "leaflet.markercluster.js": { file: noSourceMap(clusterJs), type: JS },
  "MarkerCluster.css": { file: clusterCss, type: CSS },
  "MarkerCluster.Default.css": { file: clusterDefaultCss, type: CSS },
};

/**
 * Only the console's own files and the API on this origin; no inline script, no framing. Images also from the
 * configured map tiles' origin (exactly that one), and data: URLs.
 */
export function consolePolicy(tiles: MapTiles): string {
  const images = ["'self'", "data:", ...(tiles.origin && isPolicyOrigin(tiles.origin) ? [tiles.origin] : [])].join(" ");
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src ${images}; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; ` +
    `form-action 'self'`;
}
const CSP = consolePolicy(DEFAULT_MAP_TILES);
const headers = (type: string, extra: Record<string, string> = {}) => ({
  "content-type": type,
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  ...extra,
});

type Outline = { plain: Buffer; gzip: Buffer };
const outlines: Record<string, { make: () => { path: string; holes?: string }; built?: Outline }> = {
  "world.json": { make: () => ({ path: worldPath() }) },
  // The map's fallback at city scale when tiles cannot load (0.5 s to build, 6 MB, ~2 MB sent).
  "land.json": { make: detailedLand },
};
/** An outline is built on first use and kept, gzipped too (world.json: 1.3 MB of path text, ~0.4 MB sent). */
function outlineBytes(name: string): Outline {
  const o = outlines[name];
  if (!o.built) {
    const plain = Buffer.from(JSON.stringify({ viewBox: [0, 0, 360, 180], ...o.make() }));
    o.built = { plain, gzip: gzipSync(plain) };
  }
  return o.built;
}

function outlineResponse(name: string, request: Request) {
  const bytes = outlineBytes(name);
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  return new Response((gzip ? bytes.gzip : bytes.plain) as unknown as BodyInit, {
    headers: headers("application/json", {
      "cache-control": "public, max-age=86400",
      vary: "accept-encoding",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    }),
  });
}

/** The operator console: a static web app under /console, a client of the public API on the same origin. */
export function consoleApp(tiles: MapTiles = DEFAULT_MAP_TILES) {
  // The page's policy names the configured tile origin (the policy that counts is the document's).
  const policy = { "content-security-policy": consolePolicy(tiles) };
  const page = () => new Response(indexHtml as unknown as string, { headers: headers("text/html; charset=utf-8", { "cache-control": "no-store", ...policy }) });
  // What the maps need to know, read by map.js (no inline script: the policy forbids it).
  const config = JSON.stringify({ map: { tiles: tiles.template ?? null, attribution: tiles.attribution } });
  return new Elysia({ name: "console", seed: tiles })
    .get("/console", page, { detail: { hide: true } })
    .get("/console/", page, { detail: { hide: true } })
    .get("/console/config.json", () => new Response(config, { headers: headers("application/json", { "cache-control": "no-cache", ...policy }) }), {
      detail: { hide: true },
    })
    .get("/console/assets/world.json", ({ request }) => outlineResponse("world.json", request), { detail: { hide: true } })
    .get("/console/assets/land.json", ({ request }) => outlineResponse("land.json", request), { detail: { hide: true } })
    .get(
      "/console/assets/:name",
      ({ params, set }) => {
        const asset = Object.hasOwn(ASSETS, params.name) ? ASSETS[params.name] : undefined;
        if (!asset) {
          set.status = 404;
          return { success: false, message: "No such console asset", code: "ROUTE_NOT_FOUND" };
        }
        return new Response(asset.file, { headers: headers(asset.type, { "cache-control": "no-cache", ...policy }) });
      },
      { detail: { hide: true } },
    );
}
