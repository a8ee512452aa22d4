// Rates: the provider's rate card (GET|PUT|DELETE /api/company/rates) as a form — routes between zones (airport,
// circle, polygon), distance and hourly rates, surcharges, extras, a minimum fare — and as plain JSON. Saving PUTs the
// whole card; a 400 shows each failing field beside its control, and nothing is saved.
import { h, field, select, showError, statusLine } from "./dom.js";
import * as api from "./api.js";
import { bound, showFieldErrors } from "./field-errors.js";

const text = (v) => (v == null ? "" : String(v));
const joined = (v) => (Array.isArray(v) ? v.join(", ") : "");

function zoneState(z) {
  const kind = !z ? "airport" : z.polygon !== undefined ? "polygon" : z.airport !== undefined ? "airport" : "circle";
  const polygon = z?.polygon ? JSON.stringify(z.polygon) : "";
  return { kind, airport: text(z?.airport), lat: text(z?.lat), lon: text(z?.lon), radiusKm: text(z?.radiusKm), polygon };
}

/** The form's state (every value as typed) from a card. */
export function stateOf(card = {}) {
  return {
    currency: text(card.currency),
    minimumFare: text(card.minimumFare),
    routes: (card.routes ?? []).map((r) => ({
      ...r,
      from: zoneState(r.from),
      to: zoneState(r.to),
      vehTypes: joined(r.vehTypes),
      bothWays: r.bothWays === true,
    })),
    distance: (card.distance ?? []).map((r) => ({
      ...r,
      vehTypes: joined(r.vehTypes),
      includedKm: text(r.includedKm),
      upToKm: text(r.upToKm),
    })),
    hourly: (card.hourly ?? []).map((r) => ({ ...r, vehTypes: joined(r.vehTypes), minimumHours: text(r.minimumHours) })),
    surcharges: (card.surcharges ?? []).map((s) => ({
      id: s.id,
      kind: s.kind,
      name: text(s.name),
      airports: joined(s.airports),
      from: text(s.from),
      to: text(s.to),
      dates: joined(s.dates),
      mode: s.percent !== undefined ? "percent" : "amount",
      value: text(s.percent ?? s.amount),
    })),
    extras: (card.extras ?? []).map((e) => ({ code: e.code, name: text(e.name), price: text(e.price), max: text(e.max) })),
  };
}

const trimmed = (v) => (String(v ?? "").trim() === "" ? undefined : String(v).trim());
/** A number field: a number when it reads as one, else the text as typed (the server names the field). */
const num = (v) => {
  const t = trimmed(v);
  return t !== undefined && /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
};
const words = (v, upper = true) => {
  const parts = String(v ?? "").split(/[\s,]+/).filter(Boolean);
  return parts.length ? parts.map((p) => (upper ? p.toUpperCase() : p)) : undefined;
};
function polygonOf(v) {
  try {
    return JSON.parse(v);
  } catch {
    return trimmed(v) ?? [];
  }
}
function zoneOf(z) {
  if (z.kind === "airport") return { airport: String(z.airport ?? "").trim().toUpperCase() };
  if (z.kind === "polygon") return { polygon: polygonOf(z.polygon) };
  return { lat: num(z.lat), lon: num(z.lon), radiusKm: num(z.radiusKm) };
}

/** The card a PUT sends, from the form's state. */
export function cardOf(s) {
  return {
    currency: trimmed(s.currency)?.toUpperCase(),
    minimumFare: trimmed(s.minimumFare),
    routes: s.routes.map((r) => ({
      id: trimmed(r.id),
      from: zoneOf(r.from),
      to: zoneOf(r.to),
      vehTypes: words(r.vehTypes),
      price: trimmed(r.price),
      bothWays: r.bothWays,
    })),
    distance: s.distance.map((r) => ({
      id: trimmed(r.id),
      vehTypes: words(r.vehTypes),
      base: trimmed(r.base),
      includedKm: num(r.includedKm),
      perKm: trimmed(r.perKm),
      upToKm: num(r.upToKm),
    })),
    hourly: s.hourly.map((r) => ({ id: trimmed(r.id), vehTypes: words(r.vehTypes), perHour: trimmed(r.perHour), minimumHours: num(r.minimumHours) })),
    surcharges: s.surcharges.map((r) => {
      const out = { id: trimmed(r.id), kind: r.kind, name: trimmed(r.name) };
      if (r.kind === "airportPickup") out.airports = words(r.airports) ?? [];
      if (r.kind === "night") Object.assign(out, { from: trimmed(r.from), to: trimmed(r.to) });
      if (r.kind === "date") out.dates = words(r.dates, false) ?? [];
      out[r.mode] = r.mode === "percent" ? num(r.value) : trimmed(r.value);
      return out;
    }),
    extras: s.extras.map((e) => ({ code: trimmed(e.code), name: trimmed(e.name), price: trimmed(e.price), max: num(e.max) })),
  };
}

/** The list sections: the card's key, its title, what one row is called, a blank row and the columns. */
const SECTIONS = [
  {
    key: "routes",
    title: "Routes between zones",
    noun: "Route",
    hint: "A flat price when the pickup is in From and the drop-off in To (either way when Both ways). First match wins.",
    blank: () => ({ id: "", from: zoneState(), to: { ...zoneState(), kind: "circle" }, vehTypes: "", price: "", bothWays: true }),
    columns: [
      ["id", "Id"],
      ["from", "From", "zone"],
      ["to", "To", "zone"],
      ["vehTypes", "Vehicle types"],
      ["price", "Price"],
      ["bothWays", "Both ways", "check"],
    ],
  },
  {
    key: "distance",
    title: "Distance rates",
    noun: "Distance rate",
    hint:
      "base + per km × (road km − included km); road km = great circle × 1.3, through the stops. Up to km: the rate's band " +
      "(empty: any length); a vehicle type takes its first rate whose band holds the trip.",
    blank: () => ({ id: "", vehTypes: "", base: "", includedKm: "10", perKm: "", upToKm: "" }),
    columns: [
      ["id", "Id"],
      ["vehTypes", "Vehicle types"],
      ["base", "Base"],
      ["includedKm", "Included km"],
      ["perKm", "Per km"],
      ["upToKm", "Up to km"],
    ],
  },
  {
    key: "hourly",
    title: "Hourly rates",
    noun: "Hourly rate",
    hint: "For HOURLY trips or a booked duration, before any route: per hour × max(hours, minimum hours).",
    blank: () => ({ id: "", vehTypes: "", perHour: "", minimumHours: "2" }),
    columns: [["id", "Id"], ["vehTypes", "Vehicle types"], ["perHour", "Per hour"], ["minimumHours", "Minimum hours"]],
  },
  {
    key: "surcharges",
    title: "Surcharges",
    noun: "Surcharge",
    hint: "In the pickup's own time zone: airport pickup, night (HH:MM–HH:MM, may cross midnight), dates (MM-DD). A percent is of the base.",
    blank: () => ({ id: "", kind: "night", name: "", airports: "", from: "22:00", to: "06:00", dates: "", mode: "percent", value: "" }),
    columns: [["id", "Id"], ["kind", "Kind", "kind"], ["name", "Name"], ["when", "Applies to", "when"], ["value", "Amount or percent", "value"]],
  },
  {
    key: "extras",
    title: "Extras",
    noun: "Extra",
    hint: "What a trip may ask with extras: [{code, quantity}]; Max is the most one trip may ask (empty: no limit).",
    blank: () => ({ code: "", name: "", price: "", max: "" }),
    columns: [["code", "Code"], ["name", "Name"], ["price", "Price"], ["max", "Max"]],
  },
];

/** An input bound to `row[key]`, labelled for screen readers and tests ("Route 2 price"). */
function input(row, key, label, path, props = {}) {
  return bound(path, h("input", { value: text(row[key]), "aria-label": label, onInput: (e) => (row[key] = e.target.value), ...props }));
}

function zoneCell(zone, label, path) {
  const kind = bound(path, select("kind", [["airport", "Airport"], ["circle", "Circle"], ["polygon", "Polygon"]], zone.kind));
  kind.setAttribute("aria-label", `${label} zone kind`);
  const airport = h("div", {}, input(zone, "airport", `${label} airport`, `${path}.airport`, { size: 4, maxlength: 3, placeholder: "JFK" }));
  const circle = h(
    "div",
    { class: "zone-circle" },
    input(zone, "lat", `${label} latitude`, `${path}.lat`, { size: 8, inputmode: "decimal", placeholder: "lat" }),
    input(zone, "lon", `${label} longitude`, `${path}.lon`, { size: 8, inputmode: "decimal", placeholder: "lon" }),
    input(zone, "radiusKm", `${label} radius km`, `${path}.radiusKm`, { size: 5, inputmode: "decimal", placeholder: "km" }),
  );
  const polygon = bound(
    `${path}.polygon`,
    h("textarea", {
      rows: 2,
      cols: 28,
      "aria-label": `${label} polygon`,
      placeholder: "[[lon, lat], …, first point again]",
      onInput: (e) => (zone.polygon = e.target.value),
    }),
  );
  polygon.value = zone.polygon;
  const sync = () => {
    zone.kind = kind.value;
    airport.hidden = zone.kind !== "airport";
    circle.hidden = zone.kind !== "circle";
    polygon.hidden = zone.kind !== "polygon";
  };
  kind.addEventListener("change", sync);
  sync();
  return h("td", {}, kind, airport, circle, polygon);
}

function cell(section, row, i, [key, label, kind], redraw) {
  const name = `${section.noun} ${i + 1} ${label.toLowerCase()}`;
  const path = `${section.key}[${i}].${key}`;
  if (kind === "zone") return zoneCell(row[key], `${section.noun} ${i + 1} ${label.toLowerCase()}`, path);
  if (kind === "check")
    return h("td", {}, bound(path, h("input", { type: "checkbox", checked: row[key], "aria-label": name, onChange: (e) => (row[key] = e.target.checked) })));
  if (kind === "kind") {
    const s = bound(path, select("kind", [["airportPickup", "Airport pickup"], ["night", "Night"], ["date", "Dates"]], row.kind));
    s.setAttribute("aria-label", name);
    s.addEventListener("change", () => ((row.kind = s.value), redraw()));
    return h("td", {}, s);
  }
  if (kind === "when") {
    const at = (k, l, props) => input(row, k, `${section.noun} ${i + 1} ${l}`, `${section.key}[${i}].${k}`, props);
    if (row.kind === "airportPickup") return h("td", {}, at("airports", "airports", { placeholder: "JFK, LGA" }));
    if (row.kind === "date") return h("td", {}, at("dates", "dates", { placeholder: "12-25, 01-01" }));
    return h("td", {}, at("from", "from", { size: 5, placeholder: "22:00" }), " – ", at("to", "to", { size: 5, placeholder: "06:00" }));
  }
  if (kind === "value") {
    const mode = select("mode", [["amount", "Amount"], ["percent", "Percent"]], row.mode);
    mode.setAttribute("aria-label", `${section.noun} ${i + 1} amount or percent`);
    mode.addEventListener("change", () => ((row.mode = mode.value), redraw()));
    const value = input(row, "value", `${section.noun} ${i + 1} ${row.mode}`, `${section.key}[${i}].${row.mode}`, { size: 7, inputmode: "decimal" });
    return h("td", {}, mode, " ", value);
  }
  const numeric = ["price", "base", "perKm", "perHour", "includedKm", "upToKm", "minimumHours", "max"].includes(key);
  return h("td", {}, input(row, key, name, path, numeric ? { size: 7, inputmode: "decimal" } : { size: key === "name" ? 18 : 12 }));
}

function sectionBox(section, rows, redraw) {
  const noun = section.noun.toLowerCase();
  const add = h("button", { type: "button", onClick: () => (rows.push(section.blank()), redraw(`${section.key}[${rows.length - 1}]`)) }, `Add ${noun}`);
  const table = h(
    "table",
    { "aria-label": section.title },
    h(
      "thead",
      {},
      h("tr", {}, section.columns.map(([, label]) => h("th", { scope: "col" }, label)), h("th", {}, h("span", { class: "visually-hidden" }, "Remove"))),
    ),
    h(
      "tbody",
      {},
      rows.map((row, i) =>
        h(
          "tr",
          {},
          section.columns.map((c) => cell(section, row, i, c, redraw)),
          h(
            "td",
            {},
            h("button", { type: "button", class: "danger", "aria-label": `Remove ${noun} ${i + 1}`, onClick: () => (rows.splice(i, 1), redraw()) }, "Remove"),
          ),
        ),
      ),
    ),
  );
  return h(
    "fieldset",
    { class: "rates-section" },
    h("legend", {}, `${section.title} (${rows.length})`),
    h("p", { class: "muted" }, section.hint),
    bound(section.key, h("div", { class: "tablebox" }, rows.length ? table : h("p", { class: "empty" }, "None."))),
    h("div", { class: "toolbar" }, add),
  );
}

export async function ratesPage(main) {
  let card = null;
  try {
    card = (await api.core("GET", "/api/company/rates")).data;
  } catch (error) {
    if (error.status !== 404) throw error;
  }
  let state = stateOf(card ?? {});
  const status = statusLine();
  const problem = h("div");
  const saved = h("p", { class: "muted" });
  const showSaved = () =>
    saved.replaceChildren(
      card ? `Saved ${new Date(card.updatedAt).toLocaleString()}.` : "No rate card yet: quotes use each vehicle's own minimum and hourly rates.",
    );
  const form = h("form", { "aria-label": "Rate card", onSubmit: (e) => (e.preventDefault(), save(cardOf(state))) });

  function draw(focus) {
    const currency = bound(
      "currency",
      h("input", { name: "currency", value: state.currency, size: 4, maxlength: 3, onInput: (e) => (state.currency = e.target.value) }),
    );
    const minimum = bound(
      "minimumFare",
      h("input", { name: "minimumFare", value: state.minimumFare, inputmode: "decimal", onInput: (e) => (state.minimumFare = e.target.value) }),
    );
    form.replaceChildren(
      h(
        "fieldset",
        {},
        h("legend", {}, "Card"),
        h(
          "div",
          { class: "grid" },
          field("Currency", currency, "ISO 4217; empty: the one most of your fleet uses"),
          field("Minimum fare", minimum, "A trip's total is topped up to this; empty: none"),
        ),
      ),
      ...SECTIONS.map((s) => sectionBox(s, state[s.key], draw)),
      problem,
      h("div", { class: "toolbar" }, h("button", { type: "submit", class: "primary" }, "Save rate card")),
    );
    if (focus) form.querySelector(`[data-field^="${focus}."]`)?.focus();
  }

  async function save(body) {
    status.textContent = "Saving…";
    try {
      card = (await api.core("PUT", "/api/company/rates", body)).data;
      state = stateOf(card);
      draw();
      showFieldErrors(form, problem, null);
      jsonProblem.replaceChildren();
      showSaved();
      status.textContent = "Rate card saved.";
    } catch (error) {
      status.textContent = "";
      showFieldErrors(form, problem, error);
      showError(jsonProblem, error);
    }
  }

  const json = h("textarea", { name: "cardJson", rows: 18, cols: 100, "aria-label": "Rate card JSON", spellcheck: "false" });
  const jsonProblem = h("div");
  const jsonBox = h(
    "details",
    { onToggle: (e) => e.target.open && (json.value = JSON.stringify(cardOf(state), null, 2)) },
    h("summary", {}, "Edit as JSON"),
    h("p", { class: "muted" }, "Paste or edit the whole card (the format of PUT /api/company/rates and `rates import`)."),
    json,
    jsonProblem,
    h(
      "div",
      { class: "toolbar" },
      h(
        "button",
        {
          type: "button",
          class: "primary",
          onClick: () => {
            let body;
            try {
              body = JSON.parse(json.value);
            } catch (error) {
              return showError(jsonProblem, { message: `Not JSON: ${error.message}` });
            }
            save(body);
          },
        },
        "Save JSON",
      ),
    ),
  );
  const remove = h(
    "button",
    {
      type: "button",
      class: "danger",
      onClick: async () => {
        if (!card || !confirm("Delete your rate card? Quotes go back to each vehicle's own rates.")) return;
        try {
          await api.core("DELETE", "/api/company/rates");
          card = null;
          state = stateOf({});
          draw();
          showSaved();
          status.textContent = "Rate card deleted.";
        } catch (error) {
          showError(problem, error);
        }
      },
    },
    "Delete rate card",
  );
  draw();
  showSaved();
  main.replaceChildren(
    h("h1", {}, "Rates"),
    h("p", { class: "muted" }, "Your price list: every quote sent to you is priced from it, and each option shows its breakdown."),
    saved,
    status,
    form,
    jsonBox,
    h("p", {}, remove),
  );
}
