// The map: a world basemap shipped with the service (Natural Earth via world-atlas), drawn as SVG in an
// equirectangular frame, with the fleet, search circles and the chauffeur on top. No tile server, no network.
import { h, s } from "./dom.js";

let basemap;
function loadBasemap() {
  basemap ??= fetch("/console/assets/world.json").then((r) => r.json());
  return basemap;
}

const x = (lon) => lon + 180;
const y = (lat) => 90 - lat;

/**
 * A map figure. points: [{lat, lon, label, kind}] (kind: "fleet", "hit", "chauffeur", "place");
 * circles: [{lat, lon, radiusKm, label}]. The view fits everything shown (the whole world when empty).
 */
export function mapView({ points = [], circles = [], caption = "" } = {}) {
  const svg = s("svg", { role: "img", "aria-label": "Map", class: "map", preserveAspectRatio: "xMidYMid meet", viewBox: "0 0 360 180" });
  const desc = s("desc", {}, `${points.length} point${points.length === 1 ? "" : "s"} on the map${caption ? `: ${caption}` : ""}`);
  svg.append(desc);
  const xs = [], ys = [];
  for (const p of points) xs.push(x(p.lon)), ys.push(y(p.lat));
  for (const c of circles) {
    const d = c.radiusKm / 111;
    xs.push(x(c.lon) - d / Math.max(0.2, Math.cos((c.lat * Math.PI) / 180)), x(c.lon) + d / Math.max(0.2, Math.cos((c.lat * Math.PI) / 180)));
    ys.push(y(c.lat) - d, y(c.lat) + d);
  }
  let box = [0, 0, 360, 180];
  if (xs.length) {
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const w = Math.max(x1 - x0, 0.2) * 1.3, hgt = Math.max(y1 - y0, 0.1) * 1.3;
    const size = Math.max(w, hgt * 2) ; // keep a 2:1 frame
    box = [(x0 + x1) / 2 - size / 2, (y0 + y1) / 2 - size / 4, size, size / 2];
  }
  svg.setAttribute("viewBox", box.join(" "));
  const r = box[2] / 250;
  const land = s("path", { class: "land", d: "" });
  const sea = s("rect", { class: "sea", x: -360, y: -180, width: 1080, height: 540 });
  svg.append(sea, land);
  loadBasemap().then((m) => land.setAttribute("d", m.path), () => {});
  for (const c of circles) {
    const kx = Math.max(0.2, Math.cos((c.lat * Math.PI) / 180));
    svg.append(s("ellipse", { class: "circle", cx: x(c.lon), cy: y(c.lat), rx: c.radiusKm / 111 / kx, ry: c.radiusKm / 111 }, s("title", {}, c.label ?? `${c.radiusKm} km`)));
  }
  for (const p of points) svg.append(s("circle", { class: `pt ${p.kind ?? "fleet"}`, cx: x(p.lon), cy: y(p.lat), r: p.kind === "chauffeur" ? r * 2 : r }, s("title", {}, p.label ?? "")));
  return h("figure", { class: "mapbox" }, svg, caption ? h("figcaption", {}, caption) : null);
}
