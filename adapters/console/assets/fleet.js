// Fleet: the company's entries in a sortable, filterable table; add, edit, delete; CSV/JSON import with progress
// and per-row errors; a map of the fleet and of a fleet search (airports, or a point and radius).
import { h, count, field, select, showError, statusLine } from "./dom.js";
import * as api from "./api.js";
import { drawFleetMap } from "./map.js";
import { readFleetText } from "./csv.js";

/** At most this many entries are loaded into the table (100 a page). */
const MAX_LOADED = 2000;
const COLUMNS = [
  ["name", "Name"], ["type", "Type"], ["maxPassengers", "Passengers"], ["maxLuggage", "Luggage"], ["airports", "Airports"],
  ["minimum_rate", "Minimum"], ["hourly_rate", "Hourly"], ["currency", "Currency"], ["active", "Active"],
];

async function loadFleet() {
  const items = [];
  let total = 0;
  for (let offset = 0; offset < MAX_LOADED; offset += 100) {
    const page = (await api.core("GET", `/api/fleet?limit=100&offset=${offset}`)).data;
    total = page.total;
    items.push(...page.items);
    if (items.length >= total || page.items.length === 0) break;
  }
  return { items, total };
}

export async function fleetPage(main) {
  const state = { items: [], total: 0, sort: "name", dir: 1, q: "", type: "", active: "" };
  const status = statusLine();
  const tableBox = h("div", { class: "tablebox" });
  const mapBox = h("div");
  const editor = h("div");
  const importBox = importPanel(async () => reload(), status);

  const q = h("input", { type: "search", name: "q", onInput: (e) => ((state.q = e.target.value.toLowerCase()), draw()) });
  const typeSel = h("select", { name: "type", onChange: (e) => ((state.type = e.target.value), draw()) });
  const activeSel = select("active", [["", "All"], ["true", "Active"], ["false", "Inactive"]], "");
  activeSel.addEventListener("change", (e) => ((state.active = e.target.value), draw()));

  function shown() {
    const rows = state.items.filter(
      (e) =>
        (!state.q || `${e.name} ${e.type} ${e.slug} ${e.airports.join(" ")}`.toLowerCase().includes(state.q)) &&
        (!state.type || e.type === state.type) &&
        (!state.active || String(e.active) === state.active),
    );
    const key = state.sort;
    return rows.sort((a, b) => {
      const [x, y] = [a[key], b[key]].map((v) => (Array.isArray(v) ? v.join(" ") : v));
      return (x === y ? 0 : x == null ? 1 : y == null ? -1 : x < y ? -1 : 1) * state.dir;
    });
  }

  function draw() {
    const rows = shown();
    const header = h("tr", {}, COLUMNS.map(([key, label]) =>
      h("th", { scope: "col", "aria-sort": state.sort === key ? (state.dir > 0 ? "ascending" : "descending") : "none" },
        h("button", { type: "button", class: "sort", onClick: () => { state.dir = state.sort === key ? -state.dir : 1; state.sort = key; draw(); } }, label)),
    ), h("th", { scope: "col" }, "Actions"));
    const body = rows.slice(0, 500).map((e) =>
      h("tr", {},
        h("td", {}, e.name, h("br"), h("small", { class: "muted" }, e.slug)), h("td", {}, e.type), h("td", { class: "num" }, e.maxPassengers),
        h("td", { class: "num" }, e.maxLuggage ?? "—"), h("td", {}, e.airports.join(" ")), h("td", { class: "num" }, e.minimum_rate.toFixed(2)),
        h("td", { class: "num" }, e.hourly_rate.toFixed(2)), h("td", {}, e.currency), h("td", {}, e.active ? "yes" : "no"),
        h("td", {},
          h("button", { type: "button", onClick: () => edit(e), "aria-label": `Edit ${e.name}` }, "Edit"), " ",
          h("button", { type: "button", class: "danger", "aria-label": `Delete ${e.name}`, onClick: () => remove(e) }, "Delete")),
      ));
    tableBox.replaceChildren(
      h("table", { "aria-label": "Fleet" }, h("caption", {}, `${rows.length} of ${count(state.total, "entry", "entries")}${state.items.length < state.total ? ` (first ${state.items.length} loaded)` : ""}${rows.length > 500 ? "; first 500 shown" : ""}`), h("thead", {}, header), h("tbody", {}, body)),
    );
    const located = rows.filter((e) => e.lat != null && e.lon != null);
    drawFleetMap(mapBox, located.slice(0, 3000).map((e) => ({ lat: e.lat, lon: e.lon, label: `${e.name} (${e.type})` })), { caption: `Your fleet: ${located.length} located entries` });
  }

  async function reload() {
    const loaded = await loadFleet();
    Object.assign(state, loaded);
    const types = [...new Set(state.items.map((e) => e.type))].sort();
    typeSel.replaceChildren(h("option", { value: "" }, "All types"), ...types.map((t) => h("option", { value: t, selected: t === state.type }, t)));
    draw();
  }

  async function remove(e) {
    if (!confirm(`Delete ${e.name}?`)) return;
    try {
      await api.core("DELETE", `/api/fleet/${encodeURIComponent(e.slug)}`);
      status.textContent = `Deleted ${e.name}.`;
      await reload();
    } catch (error) {
      showError(status, error);
    }
  }

  function edit(entry) {
    editor.replaceChildren(entryForm(entry, async (saved) => {
      editor.replaceChildren();
      status.textContent = `${entry ? "Saved" : "Added"} ${saved.name}.`;
      await reload();
    }, () => editor.replaceChildren()));
    editor.querySelector("input")?.focus();
  }

  main.replaceChildren(
    h("h1", {}, "Fleet"),
    status,
    h("section", { "aria-labelledby": "fleet-list" },
      h("h2", { id: "fleet-list" }, "Your vehicles"),
      h("div", { class: "toolbar" }, field("Filter", q), field("Type", typeSel), field("Status", activeSel), h("button", { type: "button", class: "primary", onClick: () => edit(undefined) }, "Add vehicle")),
      editor, tableBox),
    h("section", { "aria-labelledby": "fleet-import" }, h("h2", { id: "fleet-import" }, "Import"), importBox),
    h("section", { "aria-labelledby": "fleet-map" }, h("h2", { id: "fleet-map" }, "Map"), mapBox, searchPanel()),
  );
  await reload();
}

function entryForm(entry, onSaved, onCancel) {
  const v = entry ?? { type: "", name: "", description: "", maxPassengers: 1, maxLuggage: null, lat: null, lon: null, airports: [], minimum_rate: 0, hourly_rate: 0, currency: "USD", active: true };
  const inputs = {
    name: h("input", { name: "name", value: v.name, required: true }),
    type: h("input", { name: "type", value: v.type, required: true }),
    description: h("input", { name: "description", value: v.description }),
    maxPassengers: h("input", { name: "maxPassengers", type: "number", min: 1, value: v.maxPassengers }),
    maxLuggage: h("input", { name: "maxLuggage", type: "number", min: 0, value: v.maxLuggage ?? "" }),
    lat: h("input", { name: "lat", inputmode: "decimal", value: v.lat ?? "" }),
    lon: h("input", { name: "lon", inputmode: "decimal", value: v.lon ?? "" }),
    airports: h("input", { name: "airports", value: v.airports.join(" ") }),
    minimum_rate: h("input", { name: "minimum_rate", inputmode: "decimal", value: v.minimum_rate }),
    hourly_rate: h("input", { name: "hourly_rate", inputmode: "decimal", value: v.hourly_rate }),
    currency: h("input", { name: "currency", value: v.currency, size: 4 }),
  };
  const active = h("input", { type: "checkbox", name: "active", checked: v.active });
  const problem = h("div");
  const num = (el) => (el.value.trim() === "" ? null : Number(el.value));
  const form = h("form", {
    class: "card", "aria-label": entry ? `Edit ${entry.name}` : "Add vehicle",
    onSubmit: async (e) => {
      e.preventDefault();
      const body = {
        name: inputs.name.value, type: inputs.type.value, description: inputs.description.value, maxPassengers: num(inputs.maxPassengers),
        maxLuggage: num(inputs.maxLuggage), lat: num(inputs.lat), lon: num(inputs.lon), airports: inputs.airports.value.split(/[\s,;|]+/).filter(Boolean),
        minimum_rate: num(inputs.minimum_rate), hourly_rate: num(inputs.hourly_rate), currency: inputs.currency.value, active: active.checked,
      };
      try {
        const saved = entry ? await api.core("PATCH", `/api/fleet/${encodeURIComponent(entry.slug)}`, body) : await api.core("POST", "/api/fleet", body);
        onSaved(saved.data);
      } catch (error) {
        showError(problem, error);
      }
    },
  },
    h("h3", {}, entry ? `Edit ${entry.name}` : "Add vehicle"),
    h("div", { class: "grid" },
      field("Name", inputs.name), field("Vehicle type", inputs.type, "e.g. SEDAN, SUV, SPRINTER"), field("Description", inputs.description),
      field("Max passengers", inputs.maxPassengers), field("Max luggage", inputs.maxLuggage, "empty = unknown"), field("Latitude", inputs.lat), field("Longitude", inputs.lon),
      field("Airports served", inputs.airports, "IATA codes, space separated"), field("Minimum rate", inputs.minimum_rate), field("Hourly rate", inputs.hourly_rate), field("Currency", inputs.currency),
      h("div", { class: "field" }, h("label", {}, active, " Active (listed in search)"))),
    problem,
    h("button", { type: "submit", class: "primary" }, entry ? "Save" : "Add"), " ",
    h("button", { type: "button", onClick: onCancel }, "Cancel"),
  );
  return form;
}

function importPanel(onDone, status) {
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
        h("table", { "aria-label": "Import errors" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, parsed.lines.length ? "Line" : "Row"), h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Problem"))),
          h("tbody", {}, error.errors.slice(0, 200).map((e) => {
            const row = rowOf(e.field);
            return h("tr", {}, h("td", {}, row < 0 ? "" : parsed.lines[row] ?? row + 1), h("td", {}, e.field.replace(/^\[\d+\]\.?/, "")), h("td", {}, e.message));
          }))),
      );
    }
  };
  return h("div", { class: "card" },
    h("p", { class: "muted" }, "CSV with a header of the API's field names (name, type, maxPassengers, maxLuggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active) or a JSON array. All or nothing: a file with any invalid row imports nothing and lists every problem."),
    field("Fleet file", file), h("button", { type: "button", class: "primary", onClick: run }, "Import file"), " ", progress, report);
}

function searchPanel() {
  const airports = h("input", { name: "airports", value: "JFK" });
  const lat = h("input", { name: "lat", inputmode: "decimal" });
  const lon = h("input", { name: "lon", inputmode: "decimal" });
  const radius = h("input", { name: "radius_km", type: "number", min: 1, max: 1000, value: 50 });
  const out = h("div");
  const form = h("form", {
    class: "card", "aria-label": "Fleet search",
    onSubmit: async (e) => {
      e.preventDefault();
      const params = new URLSearchParams({ radius_km: radius.value || "50", limit: "100" });
      if (airports.value.trim()) params.set("airports", airports.value.trim().split(/[\s,;]+/).join(","));
      if (lat.value.trim() && lon.value.trim()) params.set("lat", lat.value.trim()), params.set("lon", lon.value.trim());
      try {
        const { data } = await api.core("GET", `/api/search/fleet?${params}`);
        // The answer names no airport positions: the circle is drawn for a point search.
        const centres = params.has("lat") ? [{ lat: Number(params.get("lat")), lon: Number(params.get("lon")), radiusKm: Number(radius.value || 50) }] : [];
        const hits = h("div");
        drawFleetMap(hits, data.items.filter((i) => i.lat != null).map((i) => ({ lat: i.lat, lon: i.lon, label: `${i.name} · ${i.netid} · ${i.distanceKm} km` })), { kind: "hit", circles: centres, caption: `Search: ${data.total} matches, ${data.items.length} shown` });
        out.replaceChildren(hits, (data.warnings ?? []).length ? h("ul", { class: "muted" }, data.warnings.map((w) => h("li", {}, w.detail ?? w.code))) : null);
      } catch (error) {
        showError(out, error);
      }
    },
  }, h("h3", {}, "Search the exchange's fleets"), h("div", { class: "toolbar" }, field("Search airports", airports, "IATA codes"), field("Search latitude", lat), field("Search longitude", lon), field("Radius (km)", radius), h("button", { type: "submit" }, "Search")), out);
  return form;
}
