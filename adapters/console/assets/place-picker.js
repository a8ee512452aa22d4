// New trip's drop-off, placed before it is priced (docs/places.md#drop-offs-and-stops): found by GET /api/places (the
// geocoder's places, then the city the text names) or clicked on the map. An address or a point is sent as lat/lon;
// a city as the city (no coordinates), so the quote prices it from the city's centre and says it is approximate.
import { h } from "./dom.js";
import * as api from "./api.js";
import { mapView } from "./map.js";

/** What the drop-off line says of a chosen place. */
function describe(p) {
  if (p.by === "city") return `Drop-off at the centre of ${p.label}: approximate. Find the address or click the map to place it exactly.`;
  if (p.by === "map") return `Drop-off at the point clicked on the map (${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}).`;
  return `Drop-off at ${p.label} (${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}).`;
}

/**
 * The drop-off picker: a Find button for the text `text()` returns (the address fields as one line), the places found
 * (choose one; the first is chosen), and a map a click places the drop-off on — drawn once asked for (Find, or Pick
 * on the map), as a map costs the page a second of work. `placed()` is the chosen place ({lat, lon, label, by:
 * "address" | "city" | "map", city?, state?, country?}) or null; `clear()` forgets it (the address was edited);
 * `ensure()` finds one when none is chosen and resolves to it (null: none found).
 */
export function dropOffPicker({ text }) {
  let chosen = null;
  let found = [];
  let mapShown = false;
  const status = h("p", { class: "placed muted", role: "status" }, "Not placed yet: find it, or pick it on the map.");
  const list = h("ul", { class: "places", "aria-label": "Places found", hidden: true });
  const mapBox = h("div", { class: "pick-map" });
  const find = h("button", { type: "button" }, "Find the drop-off");
  const pick = h("button", { type: "button" }, "Pick on the map");

  function draw() {
    if (!mapShown) return;
    const points = chosen ? [{ lat: chosen.lat, lon: chosen.lon, kind: "dropoff", label: chosen.label ?? "Drop-off" }] : [];
    mapBox.replaceChildren(
      mapView({
        points,
        caption: "Click the map to place the drop-off exactly",
        onPick: (at) => choose({ ...at, label: "Point on the map", by: "map" }),
      }),
    );
  }

  function showFound() {
    list.hidden = found.length === 0;
    list.replaceChildren(
      ...found.map((p) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: p === chosen ? "chosen" : "", "aria-pressed": String(p === chosen), onClick: () => choose(p) },
            p.label,
          ),
          " ",
          h("span", { class: "muted" }, p.by === "city" ? "city centre (approximate)" : "address"),
        ),
      ),
    );
  }

  function choose(p) {
    chosen = p;
    status.textContent = describe(p);
    status.classList.toggle("muted", false);
    showFound();
    draw();
  }

  async function search() {
    const q = text();
    if (q.length < 2) {
      status.textContent = "Type the drop-off's address or city first.";
      return null;
    }
    find.disabled = true;
    status.textContent = "Finding the drop-off…";
    try {
      found = (await api.core("GET", `/api/places?q=${encodeURIComponent(q.slice(0, 200))}`)).data.places;
    } finally {
      find.disabled = false;
    }
    if (found.length === 0) {
      chosen = null;
      showFound();
      status.textContent = `Nothing found for "${q}": check the address, add the city, or click the drop-off on the map.`;
      draw();
      return null;
    }
    choose(found[0]);
    return chosen;
  }

  const showMap = () => {
    mapShown = true;
    pick.hidden = true;
    draw();
  };
  find.addEventListener("click", () => (showMap(), search().catch((e) => (status.textContent = e.message))));
  pick.addEventListener("click", showMap);
  return {
    box: h("div", { class: "place-picker" }, h("div", { class: "toolbar" }, find, pick), status, list, mapBox),
    placed: () => chosen,
    clear() {
      if (!chosen && found.length === 0) return;
      chosen = null;
      found = [];
      showFound();
      status.textContent = "Not placed yet: find it, or pick it on the map.";
      status.classList.toggle("muted", true);
      draw();
    },
    ensure: async () => chosen ?? (await search()),
  };
}

/** The drop-off as the quote is asked with it: an address or a point by its lat/lon; a city by its city, state and country. */
export function placedDropOff(location, p) {
  if (p.by === "city") {
    const named = { ...location, city: p.city ?? location.city };
    if (p.state) named.state = p.state;
    if (p.country) named.country = p.country;
    return named;
  }
  return { ...location, lat: String(p.lat), lon: String(p.lon) };
}

/** Where the drop-off of the booking will be, in words: as placed before the quote, and whether the quote found it approximate. */
export function dropOffSentence(p, approximate) {
  if (!p) return approximate ? "Drop-off placed by its city's centre: the price may change when exact coordinates come." : null;
  if (p.by === "city") return `Drop-off at the centre of ${p.label} (approximate): the price may change when exact coordinates come.`;
  return p.by === "map" ? `Drop-off at the point clicked on the map (${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}).` : `Drop-off at ${p.label}.`;
}
