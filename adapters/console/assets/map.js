// The maps: Leaflet (served by this process, like every console file) over the tiles the server names
// (CONSOLE_MAP_TILES, OpenStreetMap's by default), loaded by the browser when it can reach them. When tiles cannot
// load (offline, a tile server error) the map shows the land outline shipped with the service (Natural Earth 1:10m)
// instead. Fleets and search matches are clustered; a booking's map shows pickup, stops, drop-off and the chauffeur.
import { h } from "./dom.js";

const ASSETS = "/console/assets";

let config;
/** The server's map settings: { tiles: URL template or null, attribution }. */
function mapConfig() {
  config ??= fetch("/console/config.json")
    .then((r) => (r.ok ? r.json() : {}))
    .then(
      (c) => c.map ?? {},
      () => ({}),
    );
  return config;
}

let leaflet;
function addScript(src) {
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    el.src = src;
    el.onload = resolve;
    el.onerror = () => reject(new Error(`The map library (${src}) did not load`));
    document.head.append(el);
  });
}
/** Leaflet and its clustering, added to the page on first use (scripts and styles from this origin). */
function loadLeaflet() {
  leaflet ??= (async () => {
    for (const css of ["leaflet.css", "MarkerCluster.css", "MarkerCluster.Default.css"])
      if (!document.querySelector(`link[href="${ASSETS}/${css}"]`)) document.head.prepend(h("link", { rel: "stylesheet", href: `${ASSETS}/${css}` }));
    if (!window.L) await addScript(`${ASSETS}/leaflet.js`);
    if (!window.L.MarkerClusterGroup) await addScript(`${ASSETS}/leaflet.markercluster.js`);
    return window.L;
  })();
  return leaflet;
}

const outlines = {};
/** Rings of an SVG path in the shipped frame (x = lon + 180, y = 90 − lat), as [lat, lon] lists with their box. */
function ringsOf(path = "") {
  const rings = [];
  for (const part of path.split("M")) {
    const ring = [];
    let s = 90,
      n = -90,
      w = 180,
      e = -180;
    for (const p of part.replace(/Z$/, "").split("L")) {
      const space = p.indexOf(" ");
      if (space <= 0) continue;
      const lat = 90 - Number(p.slice(space + 1)),
        lon = Number(p.slice(0, space)) - 180;
      ring.push([lat, lon]);
      if (lat < s) s = lat;
      if (lat > n) n = lat;
      if (lon < w) w = lon;
      if (lon > e) e = lon;
    }
    if (ring.length > 2)
      rings.push({
        ring,
        box: [
          [s, w],
          [n, e],
        ],
      });
  }
  return rings;
}
/** A shipped outline (world.json: 1:50m countries; land.json: 1:10m land and its lakes), read once. */
function loadOutline(name) {
  outlines[name] ??= fetch(`${ASSETS}/${name}`)
    .then((r) => r.json())
    .then(({ path, holes }) => ({ land: ringsOf(path), lakes: ringsOf(holes) }));
  outlines[name].catch(() => delete outlines[name]);
  return outlines[name];
}

/**
 * The outline under `map`: 1:50m countries below zoom 6, 1:10m land (Manhattan is land at city scale) from there;
 * only the rings near the view are on the map, so a move projects thousands of points, not the world's 400,000.
 */
function drawOutline(L, map, onError, onDrawn) {
  const style = { interactive: false, color: "#b9b2a3", weight: 1, fillOpacity: 1 };
  // Two canvases in the outline pane, lakes above land.
  const panes = { land: L.canvas({ pane: "outline" }).addTo(map), lakes: L.canvas({ pane: "outline" }).addTo(map) };
  const shown = new Map();
  let turn = 0;
  const update = async () => {
    const mine = ++turn;
    let data;
    try {
      data = await loadOutline(map.getZoom() >= 6 ? "land.json" : "world.json");
    } catch (error) {
      return onError(error);
    }
    if (mine !== turn) return;
    const view = map.getBounds().pad(0.5);
    const wanted = new Set();
    for (const kind of ["land", "lakes"]) for (const r of data[kind]) if (view.intersects(r.box)) wanted.add(r);
    for (const [r, layer] of shown) if (!wanted.has(r)) (layer.remove(), shown.delete(r));
    for (const kind of ["land", "lakes"])
      for (const r of data[kind])
        if (wanted.has(r) && !shown.has(r))
          shown.set(r, L.polygon(r.ring, { ...style, pane: "outline", renderer: panes[kind], fillColor: kind === "land" ? "#f3efe6" : "#cfe3f3" }).addTo(map));
    onDrawn();
  };
  map.on("moveend", update);
  update();
}

const LEGEND = {
  pickup: "Pickup",
  stop: "Stop",
  dropoff: "Drop-off",
  place: "Place",
  chauffeur: "Chauffeur's last position",
  fleet: "Vehicle",
  hit: "Search match",
  cluster: "Group of markers (count)",
  circle: "Search radius",
};
const CLUSTERED = new Set(["fleet", "hit"]);
const LETTER = { pickup: "P", dropoff: "D", chauffeur: "C" };

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The box around points and circles (circles by their radius), or undefined when there is nothing. */
function boundsOf(L, points, circles) {
  const corners = points.map((p) => [p.lat, p.lon]);
  for (const c of circles) {
    const dLat = c.radiusKm / 111;
    const dLon = dLat / Math.max(0.05, Math.cos((c.lat * Math.PI) / 180));
    corners.push([c.lat - dLat, c.lon - dLon], [c.lat + dLat, c.lon + dLon]);
  }
  return corners.length ? L.latLngBounds(corners) : undefined;
}

/** Resolves once `el` is in the document (the page appends the figure after building it); false after ~5 s. */
function whenAttached(el) {
  return new Promise((resolve) => {
    let frames = 0;
    const step = () => (el.isConnected ? resolve(true) : ++frames > 300 ? resolve(false) : requestAnimationFrame(step));
    step();
  });
}

/**
 * A map figure. points: [{lat, lon, label, kind}] (kind: "pickup", "stop", "dropoff", "chauffeur", "place", or
 * "fleet" and "hit", which are clustered); circles: [{lat, lon, radiusKm, label}]. The view fits everything shown
 * (the whole world when empty). The figure's data-basemap says what is under the markers: "tiles" or "outline"
 * (then data-outline is "drawn" once the outline is on the map). onPick({lat, lon}): a click on the map picks a place.
 */
export function mapView({ points = [], circles = [], caption = "", onPick } = {}) {
  const note = h("p", { class: "map-note muted", role: "status" });
  const box = h("div", { class: "map", role: "region", "aria-label": "Map" });
  const figure = h(
    "figure",
    { class: "mapbox", "data-basemap": "loading", "data-points": points.length },
    box,
    h("figcaption", {}, caption || `${points.length} point${points.length === 1 ? "" : "s"} on the map`, " ", note),
  );
  Promise.all([loadLeaflet(), mapConfig(), whenAttached(figure)])
    .then(([L, cfg, attached]) => attached && draw(L, cfg, figure, box, note, points, circles, onPick))
    .catch((error) => {
      figure.dataset.basemap = "none";
      note.textContent = error.message;
    });
  return figure;
}

/** The maps drawn so far: one whose page was replaced is removed (its listeners and tiles go with it). */
const live = new Set();

function draw(L, cfg, figure, box, note, points, circles, onPick) {
  for (const old of live) if (!old.getContainer().isConnected) (old.remove(), live.delete(old));
  const map = L.map(box, { worldCopyJump: true, minZoom: 1, maxZoom: 19, zoomSnap: 0.5 });
  live.add(map);
  map.attributionControl.setPrefix("Leaflet");
  // The outline sits under the tiles: where a tile loads it covers it; where one fails the land shows through.
  map.createPane("outline").style.zIndex = "150";
  const outline = () => {
    if (figure.dataset.basemap === "outline") return;
    figure.dataset.basemap = "outline";
    note.textContent = cfg.tiles ? "Map tiles could not be loaded: the built-in outline is shown." : "Built-in outline (no map tiles configured).";
    drawOutline(
      L,
      map,
      () => (note.textContent = "Neither map tiles nor the built-in outline could be loaded."),
      () => (figure.dataset.outline = "drawn"),
    );
  };
  if (cfg.tiles) {
    // Tile requests name the console's origin (tile servers such as OpenStreetMap's ask for a Referer), never a path.
    const tiles = L.tileLayer(cfg.tiles, { maxZoom: 19, attribution: escapeHtml(cfg.attribution ?? ""), referrerPolicy: "strict-origin" }).addTo(map);
    tiles.on("tileerror", outline);
    tiles.on("tileload", () => {
      if (figure.dataset.basemap === "loading") figure.dataset.basemap = "tiles";
    });
    if (navigator.onLine === false) outline();
  } else outline();

  const kinds = new Set();
  const clusters = L.markerClusterGroup({ showCoverageOnHover: false, maxClusterRadius: 45, chunkedLoading: true });
  points.forEach((p, i) => {
    const kind = LEGEND[p.kind] ? p.kind : "place";
    kinds.add(kind);
    const small = CLUSTERED.has(kind);
    const text = kind === "stop" ? String(p.stop ?? i) : (LETTER[kind] ?? "");
    const icon = L.divIcon({ className: `pin pin-${kind}`, html: escapeHtml(text), iconSize: small ? [12, 12] : [24, 24] });
    const marker = L.marker([p.lat, p.lon], {
      icon,
      title: p.label ?? LEGEND[kind],
      alt: p.label ?? LEGEND[kind],
      zIndexOffset: kind === "chauffeur" ? 1000 : 0,
    });
    if (p.label) marker.bindTooltip(h("span", {}, p.label));
    if (small) clusters.addLayer(marker);
    else marker.addTo(map);
  });
  if (clusters.getLayers().length) {
    clusters.addTo(map);
    kinds.add("cluster");
  }
  for (const c of circles) {
    kinds.add("circle");
    L.circle([c.lat, c.lon], { radius: c.radiusKm * 1000, color: "#d97706", weight: 2, fillOpacity: 0.06 })
      .bindTooltip(h("span", {}, c.label ?? `${c.radiusKm} km`))
      .addTo(map);
  }
  if (kinds.size) {
    const legend = L.control({ position: "bottomleft" });
    legend.onAdd = () => {
      const el = h(
        "div",
        { class: "map-legend" },
        h(
          "ul",
          { "aria-label": "Legend" },
          [...kinds].map((k) => h("li", {}, h("span", { class: `swatch pin-${k}`, "aria-hidden": "true" }), LEGEND[k])),
        ),
      );
      L.DomEvent.disableClickPropagation(el);
      return el;
    };
    legend.addTo(map);
  }
  const bounds = boundsOf(L, points, circles);
  if (!bounds) map.setView([20, 0], 1);
  else if (points.length === 1 && !circles.length) map.setView(bounds.getCenter(), 13);
  else map.fitBounds(bounds, { padding: [30, 30], maxZoom: 14 });
  if (onPick) {
    box.classList.add("pickable");
    // Six decimals (~0.1 m); a longitude clicked on a world copy is read back into −180…180.
    map.on("click", (e) => onPick({ lat: Number(e.latlng.lat.toFixed(6)), lon: Number(L.Util.wrapNum(e.latlng.lng, [-180, 180], true).toFixed(6)) }));
  }
  figure.map = map;
}

/** A place for the booking map: {lat, lon} with numbers, or undefined. */
const placed = (p) =>
  p && Number.isFinite(Number(p.lat)) && Number.isFinite(Number(p.lon)) && p.lat !== "" && p.lon !== ""
    ? { lat: Number(p.lat), lon: Number(p.lon) }
    : undefined;

/**
 * The booking's map in `el`: pickup, stops, drop-off (each {lat, lon, label?} or undefined) and the chauffeur's last
 * position ({lat, lon, label?}), with a legend.
 */
export function drawMap(el, { pickup, stops = [], dropoff, chauffeur, caption = "" } = {}) {
  const points = [];
  const add = (p, kind, label, extra = {}) => {
    const at = placed(p);
    if (at) points.push({ ...at, kind, label: p.label ?? label, ...extra });
  };
  add(pickup, "pickup", "Pickup");
  stops.forEach((s, i) => add(s, "stop", `Stop ${i + 1}`, { stop: i + 1 }));
  add(dropoff, "dropoff", "Drop-off");
  add(chauffeur, "chauffeur", "Chauffeur");
  const figure = mapView({ points, caption });
  el.replaceChildren(figure);
  return figure;
}

/** A fleet (or search matches: kind "hit") on a clustered map in `el`; entries: [{lat, lon, label}]. */
export function drawFleetMap(el, entries, { kind = "fleet", circles = [], caption = "" } = {}) {
  const points = entries.filter((e) => placed(e)).map((e) => ({ lat: Number(e.lat), lon: Number(e.lon), label: e.label, kind }));
  const figure = mapView({ points, circles, caption });
  el.replaceChildren(figure);
  return figure;
}

/**
 * A booking's places for drawMap: where the lookup placed each (its `places`, beside `data`: an airport pickup at
 * its airport), else the location's own lat/lon; the chauffeur's last position when the booking shows one.
 */
export function bookingPlaces(b, places = b.places) {
  const t = b.tripPacket ?? {};
  const at = (placedAt, loc, label) => {
    const p = placedAt ?? loc;
    if (!p) return undefined;
    const airport = placedAt?.airport ? ` at ${placedAt.airport.name} (${placedAt.airport.iata})` : "";
    return { lat: p.lat, lon: p.lon, label: `${label}${airport}` };
  };
  return {
    pickup: at(places?.pickup, t.locations?.pickup, "Pickup"),
    stops: (t.locations?.stops ?? []).map((s, i) => at(places?.stops?.[i], s, `Stop ${i + 1}`)),
    dropoff: at(places?.dropOff, t.locations?.dropOff, "Drop-off"),
    chauffeur: t.location ? { lat: t.location.lat, lon: t.location.lon, label: `Chauffeur at ${t.location.timestamp}` } : undefined,
  };
}
