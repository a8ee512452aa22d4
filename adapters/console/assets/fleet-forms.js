// Fleet forms: add or edit an entry, import a CSV or JSON file with progress and per-row errors, and the fleet
// search tab (airports, or a point and radius) with its map.
import { h, count, field, showError, showFormErrors, submitForm } from "./dom.js";
import * as api from "./api.js";
import { drawFleetMap } from "./map.js";
import { readFleetText } from "./csv.js";

export function entryForm(entry, onSaved, onCancel) {
  const v = entry ?? {
    type: "",
    name: "",
    description: "",
    maxPassengers: 1,
    maxLuggage: null,
    lat: null,
    lon: null,
    airports: [],
    // No rate is made up: the operator types each one (both are required).
    minimum_rate: "",
    hourly_rate: "",
    currency: "USD",
    active: true,
  };
  const inputs = {
    name: h("input", { name: "name", value: v.name, required: true }),
    type: h("input", { name: "type", value: v.type, required: true }),
    description: h("input", { name: "description", value: v.description }),
    maxPassengers: h("input", { name: "maxPassengers", type: "number", min: 1, value: v.maxPassengers }),
    maxLuggage: h("input", { name: "maxLuggage", type: "number", min: 0, value: v.maxLuggage ?? "" }),
    lat: h("input", { name: "lat", inputmode: "decimal", value: v.lat ?? "" }),
    lon: h("input", { name: "lon", inputmode: "decimal", value: v.lon ?? "" }),
    airports: h("input", { name: "airports", value: v.airports.join(" ") }),
    minimum_rate: h("input", { name: "minimum_rate", inputmode: "decimal", value: v.minimum_rate, required: true }),
    hourly_rate: h("input", { name: "hourly_rate", inputmode: "decimal", value: v.hourly_rate, required: true }),
    currency: h("input", { name: "currency", value: v.currency, size: 4 }),
  };
  const active = h("input", { type: "checkbox", name: "active", checked: v.active });
  const problem = h("div");
  // Empty is null; what is not a number goes as typed, so the server's answer names the field.
  const num = (el) => {
    const text = el.value.trim();
    return text === "" ? null : Number.isFinite(Number(text)) ? Number(text) : text;
  };
  const form = submitForm(
    {
      class: "card",
      "aria-label": entry ? `Edit ${entry.name}` : "Add vehicle",
    },
    async () => {
      const body = {
        name: inputs.name.value,
        type: inputs.type.value,
        description: inputs.description.value,
        maxPassengers: num(inputs.maxPassengers),
        maxLuggage: num(inputs.maxLuggage),
        lat: num(inputs.lat),
        lon: num(inputs.lon),
        airports: inputs.airports.value.split(/[\s,;|]+/).filter(Boolean),
        minimum_rate: num(inputs.minimum_rate),
        hourly_rate: num(inputs.hourly_rate),
        currency: inputs.currency.value,
        active: active.checked,
      };
      try {
        const saved = entry ? await api.core("PATCH", `/api/fleet/${encodeURIComponent(entry.slug)}`, body) : await api.core("POST", "/api/fleet", body);
        onSaved(saved.data);
      } catch (error) {
        showFormErrors(form, problem, error);
      }
    },
    h("h3", {}, entry ? `Edit ${entry.name}` : "Add vehicle"),
    h(
      "div",
      { class: "grid" },
      field("Name", inputs.name),
      field("Vehicle type", inputs.type, "e.g. SEDAN, SUV, SPRINTER"),
      field("Description", inputs.description),
      field("Max passengers", inputs.maxPassengers),
      field("Max luggage", inputs.maxLuggage, "empty = unknown"),
      field("Latitude", inputs.lat),
      field("Longitude", inputs.lon),
      field("Airports served", inputs.airports, "IATA codes, space separated"),
      field("Minimum rate", inputs.minimum_rate, "The least a trip costs, in the currency below"),
      field("Hourly rate", inputs.hourly_rate, "Per hour, in the currency below"),
      field("Currency", inputs.currency),
      h("div", { class: "field" }, h("label", {}, active, " Active (listed in search)")),
    ),
    problem,
    h("button", { type: "submit", class: "primary" }, entry ? "Save" : "Add"),
    " ",
    h("button", { type: "button", onClick: onCancel }, "Cancel"),
  );
  return form;
}

export function importPanel(onDone, status) {
  const file = h("input", { type: "file", name: "file", accept: ".csv,.json,text/csv,application/json" });
  const progress = h("progress", { max: 1, value: 0, "aria-label": "Import progress" });
  const report = h("div");
  const run = async () => {
    report.replaceChildren();
    const f = file.files?.[0];
    if (!f) return showError(report, { message: "Choose a .csv or .json file first" });
    let parsed;
    try {
      parsed = readFleetText(f.name, await f.text());
    } catch (error) {
      return showError(report, { message: `${f.name}: ${error.message}` });
    }
    progress.value = 0;
    try {
      const answer = await api.postWithProgress("/api/fleet/import", parsed.rows, (p) => (progress.value = p * 0.9));
      progress.value = 1;
      status.textContent = `Imported ${count(answer.data.imported, "entry", "entries")} from ${f.name}.`;
      await onDone();
    } catch (error) {
      progress.value = 0;
      if (!error.errors?.length) return showError(report, error);
      const rowOf = (fieldName) => Number(/^\[(\d+)\]/.exec(fieldName)?.[1] ?? -1);
      report.replaceChildren(
        h("div", { role: "alert", class: "error" }, `Nothing was imported: ${error.message}`),
        h(
          "table",
          { "aria-label": "Import errors" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, parsed.lines.length ? "Line" : "Row"),
              h("th", { scope: "col" }, "Field"),
              h("th", { scope: "col" }, "Problem"),
            ),
          ),
          h(
            "tbody",
            {},
            error.errors.slice(0, 200).map((e) => {
              const row = rowOf(e.field);
              return h(
                "tr",
                {},
                h("td", {}, row < 0 ? "" : (parsed.lines[row] ?? row + 1)),
                h("td", {}, e.field.replace(/^\[\d+\]\.?/, "")),
                h("td", {}, e.message),
              );
            }),
          ),
        ),
      );
    }
  };
  return h(
    "div",
    { class: "card" },
    h(
      "p",
      { class: "muted" },
      "CSV with a header of the API's field names (name, type, maxPassengers, maxLuggage, lat, lon, airports, minimum_rate, hourly_rate, " +
        "currency, active) or a JSON array. All or nothing: a file with any invalid row imports nothing and lists every problem.",
    ),
    field("Fleet file", file),
    h("button", { type: "button", class: "primary", onClick: run }, "Import file"),
    " ",
    progress,
    report,
  );
}

/** Results a search asks for; a plan below PROFESSIONAL gets fewer (the answer's `limit`). */
const asked = 100;

/** The matches listed nearest first: vehicle, operator, seats, distance and rates. */
function resultsTable(data) {
  return h(
    "div",
    { class: "tablebox" },
    h(
      "table",
      { "aria-label": "Search results" },
      h("caption", {}, data.items.length ? `Nearest first: ${count(data.items.length, "vehicle")}` : "No vehicle matches."),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Vehicle", "Operator", "Seats", "Distance", "Minimum / hourly"].map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        data.items.map((i) =>
          h(
            "tr",
            {},
            h("td", {}, i.name, h("div", { class: "muted" }, i.type)),
            h("td", {}, i.netid),
            h("td", { class: "num" }, i.maxPassengers),
            h("td", { class: "num" }, `${i.distanceKm} km`),
            h("td", { class: "num" }, `${i.minimum_rate} / ${i.hourly_rate}${i.currency ? ` ${i.currency}` : ""}`),
          ),
        ),
      ),
    ),
  );
}

/** Says so when the plan held the answer to fewer results than were asked for and more match. */
function capNote(data, wanted) {
  if (data.limit >= wanted || data.total <= data.offset + data.items.length) return null;
  const plan = api.company()?.plan;
  return h(
    "p",
    { class: "cap-note", role: "note" },
    `Showing ${data.items.length} of ${data.total} matches — your ${plan ? `${plan} ` : ""}plan caps search results at ${data.limit}.`,
  );
}

export function searchPanel() {
  const airports = h("input", { name: "airports", value: "JFK" });
  const lat = h("input", { name: "lat", inputmode: "decimal" });
  const lon = h("input", { name: "lon", inputmode: "decimal" });
  const radius = h("input", { name: "radius_km", type: "number", min: 1, max: 1000, value: 50 });
  const out = h("div");
  const form = submitForm(
    {
      class: "card",
      "aria-label": "Fleet search",
    },
    async () => {
      const params = new URLSearchParams({ radius_km: radius.value || "50", limit: String(asked) });
      if (airports.value.trim())
        params.set(
          "airports",
          airports.value
            .trim()
            .split(/[\s,;]+/)
            .join(","),
        );
      if (lat.value.trim() && lon.value.trim()) (params.set("lat", lat.value.trim()), params.set("lon", lon.value.trim()));
      try {
        const { data } = await api.core("GET", `/api/search/fleet?${params}`);
        // The answer names no airport positions: the circle is drawn for a point search.
        const centres = params.has("lat") ? [{ lat: Number(params.get("lat")), lon: Number(params.get("lon")), radiusKm: Number(radius.value || 50) }] : [];
        const hits = h("div");
        out.replaceChildren(
          capNote(data, asked),
          h("div", { class: "search-results" }, resultsTable(data), hits),
          (data.warnings ?? []).length
            ? h(
                "ul",
                { class: "muted" },
                data.warnings.map((w) => h("li", {}, w.detail ?? w.code)),
              )
            : null,
        );
        // Drawn once on the page: the map sizes itself to its box.
        drawFleetMap(
          hits,
          data.items.filter((i) => i.lat != null).map((i) => ({ lat: i.lat, lon: i.lon, label: `${i.name} · ${i.netid} · ${i.distanceKm} km` })),
          { kind: "hit", circles: centres, caption: `Search: ${data.total} matches, ${data.items.length} shown` },
        );
      } catch (error) {
        showError(out, error);
      }
    },
    h("h3", {}, "Search the exchange's fleets"),
    h(
      "div",
      { class: "toolbar" },
      field("Search airports", airports, "IATA codes"),
      field("Search latitude", lat),
      field("Search longitude", lon),
      field("Radius (km)", radius),
      h("button", { type: "submit" }, "Search"),
    ),
    out,
  );
  return form;
}
