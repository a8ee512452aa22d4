import { Elysia } from "elysia";
import { gzipSync } from "node:zlib";
import { worldPath } from "./basemap";
// The console's files as text, embedded with the code (also inside the compiled binary): no CDN, no network at run time.
import indexHtml from "./assets/index.html" with { type: "text" };
import styleCss from "./assets/style.css" with { type: "text" };
import appJs from "./assets/app.js" with { type: "text" };
import apiJs from "./assets/api.js" with { type: "text" };
import domJs from "./assets/dom.js" with { type: "text" };
import mapJs from "./assets/map.js" with { type: "text" };
import csvJs from "./assets/csv.js" with { type: "text" };
import fleetJs from "./assets/fleet.js" with { type: "text" };
import bookingsJs from "./assets/bookings.js" with { type: "text" };
import bookingJs from "./assets/booking.js" with { type: "text" };
import settingsJs from "./assets/settings.js" with { type: "text" };
import deliveriesJs from "./assets/deliveries.js" with { type: "text" };
import partnersJs from "./assets/partners.js" with { type: "text" };
import liveJs from "./assets/live.js" with { type: "text" };
import formatJs from "./assets/format.js" with { type: "text" };
import newtripJs from "./assets/newtrip.js" with { type: "text" };

const JS = "text/javascript; charset=utf-8";
const ASSETS: Record<string, { file: string; type: string }> = {
  "style.css": { file: styleCss, type: "text/css; charset=utf-8" },
  "app.js": { file: appJs, type: JS },
  "api.js": { file: apiJs, type: JS },
  "dom.js": { file: domJs, type: JS },
  "map.js": { file: mapJs, type: JS },
  "csv.js": { file: csvJs, type: JS },
  "fleet.js": { file: fleetJs, type: JS },
  "bookings.js": { file: bookingsJs, type: JS },
  "booking.js": { file: bookingJs, type: JS },
  "settings.js": { file: settingsJs, type: JS },
  "deliveries.js": { file: deliveriesJs, type: JS },
  "partners.js": { file: partnersJs, type: JS },
  "live.js": { file: liveJs, type: JS },
  "format.js": { file: formatJs, type: JS },
  "newtrip.js": { file: newtripJs, type: JS },
};

/** Only the console's own files and the API on this origin; no inline script, no framing. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const headers = (type: string, extra: Record<string, string> = {}) => ({ "content-type": type, "content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", ...extra });

let basemap: { plain: Buffer; gzip: Buffer } | undefined;
/** The basemap is built on first use (about 0.1 s) and kept, gzipped too (1.3 MB of path text, ~0.4 MB sent). */
function basemapBytes() {
  if (!basemap) {
    const plain = Buffer.from(JSON.stringify({ viewBox: [0, 0, 360, 180], path: worldPath() }));
    basemap = { plain, gzip: gzipSync(plain) };
  }
  return basemap;
}

/** The operator console: a static web app under /console, a client of the public API on the same origin. */
export function consoleApp() {
  const page = () => new Response(indexHtml as unknown as string, { headers: headers("text/html; charset=utf-8", { "cache-control": "no-store" }) });
  return new Elysia({ name: "console" })
    .get("/console", page, { detail: { hide: true } })
    .get("/console/", page, { detail: { hide: true } })
    .get(
      "/console/assets/world.json",
      ({ request }) => {
        const bytes = basemapBytes();
        const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
        return new Response((gzip ? bytes.gzip : bytes.plain) as unknown as BodyInit, { headers: headers("application/json", { "cache-control": "public, max-age=86400", vary: "accept-encoding", ...(gzip ? { "content-encoding": "gzip" } : {}) }) });
      },
      { detail: { hide: true } },
    )
    .get(
      "/console/assets/:name",
      ({ params, set }) => {
        const asset = Object.hasOwn(ASSETS, params.name) ? ASSETS[params.name] : undefined;
        if (!asset) {
          set.status = 404;
          return { success: false, message: "No such console asset", code: "ROUTE_NOT_FOUND" };
        }
        return new Response(asset.file, { headers: headers(asset.type, { "cache-control": "no-cache" }) });
      },
      { detail: { hide: true } },
    );
}
