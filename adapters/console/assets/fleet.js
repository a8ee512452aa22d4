// Fleet: the company's entries in a table the server pages, sorts and filters; add, edit, delete; CSV/JSON import
// with progress and per-row errors; tabs for a map of the fleet and a fleet search (airports, or a point and radius).
import { h, count, field, select, showError, statusLine, when } from "./dom.js";
import * as api from "./api.js";
import { drawFleetMap } from "./map.js";
import { entryForm, importPanel, searchPanel } from "./fleet-forms.js";

/** Rows per table page; the map draws at most MAP_MAX of the entries that pass the filters (100 a request). */
const PAGE = 50;
const MAP_MAX = 1000;
/** The table's columns: [field, label, the server's sort key when the column sorts]. */
const COLUMNS = [
  ["name", "Name", "name"],
  ["type", "Type", "type"],
  ["maxPassengers", "Passengers", "maxPassengers"],
  ["maxLuggage", "Luggage"],
  ["airports", "Airports"],
  ["minimum_rate", "Minimum"],
  ["hourly_rate", "Hourly"],
  ["currency", "Currency"],
  ["active", "Active", "active"],
  ["updatedAt", "Updated", "updatedAt"],
];
/** A count with thousands separators: 21,600. */
const n = (x) => x.toLocaleString("en-US");
const COMMON_TYPES = ["SEDAN", "SUV", "LIMO", "SPRINTER", "VAN_MINI", "BUS", "COACH"];

/** The listing's query: the table's filters, order and page (the server pages, sorts and filters). */
function listingQuery(state, extra = {}) {
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(state.offset), sort: state.sort, order: state.order, ...extra });
  if (state.q) params.set("q", state.q);
  if (state.type) params.set("type", state.type);
  if (state.active) params.set("active", state.active);
  return params;
}

/** Tabs over panels: [label, panel, onShow]; only the chosen panel is shown. */
function tabs(label, entries) {
  const buttons = entries.map(([name], i) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `tab-${name.toLowerCase()}`,
        "aria-controls": `panel-${name.toLowerCase()}`,
        "aria-selected": i === 0 ? "true" : "false",
        tabindex: i === 0 ? "0" : "-1",
        class: "tab",
        onClick: () => choose(i),
      },
      name,
    ),
  );
  const panels = entries.map(([name, panel], i) =>
    h("div", { role: "tabpanel", id: `panel-${name.toLowerCase()}`, "aria-labelledby": `tab-${name.toLowerCase()}`, hidden: i !== 0 }, panel),
  );
  function choose(i) {
    buttons.forEach((b, k) => {
      b.setAttribute("aria-selected", String(k === i));
      b.tabIndex = k === i ? 0 : -1;
    });
    panels.forEach((p, k) => (p.hidden = k !== i));
    entries[i][2]?.();
  }
  const list = h(
    "div",
    {
      role: "tablist",
      "aria-label": label,
      class: "tabs",
      onKeydown: (e) => {
        const at = buttons.indexOf(document.activeElement);
        if (at < 0 || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
        const next = (at + (e.key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length;
        choose(next);
        buttons[next].focus();
      },
    },
    buttons,
  );
  return [list, ...panels];
}

export async function fleetPage(main) {
  const state = { items: [], total: 0, offset: 0, sort: "name", order: "asc", q: "", type: "", active: "" };
  const status = statusLine();
  const tableBox = h("div", { class: "tablebox" });
  const pager = h("div", { class: "toolbar pager" });
  const mapBox = h("div");
  const editor = h("div");
  const importBox = importPanel(async () => reload(), status);
  let mapStale = true;
  let mapShown = false;

  let typing;
  const q = h("input", {
    type: "search",
    name: "q",
    placeholder: "name or slug",
    onInput: (e) => {
      clearTimeout(typing);
      typing = setTimeout(() => ((state.q = e.target.value.trim()), (state.offset = 0), reload()), 300);
    },
  });
  const typeIn = h("input", {
    name: "type",
    list: "fleet-types",
    size: 10,
    placeholder: "any",
    onChange: (e) => ((state.type = e.target.value.trim().toUpperCase()), (state.offset = 0), reload()),
  });
  const typeList = h(
    "datalist",
    { id: "fleet-types" },
    COMMON_TYPES.map((t) => h("option", { value: t })),
  );
  const activeSel = select(
    "active",
    [
      ["", "All"],
      ["true", "Active"],
      ["false", "Inactive"],
    ],
    "",
  );
  activeSel.addEventListener("change", (e) => ((state.active = e.target.value), (state.offset = 0), reload()));

  function sortBy(key) {
    state.order = state.sort === key && state.order === "asc" ? "desc" : "asc";
    state.sort = key;
    state.offset = 0;
    reload();
  }

  function draw() {
    const header = h(
      "tr",
      {},
      COLUMNS.map(([key, label, sortKey]) =>
        h(
          "th",
          { scope: "col", "aria-sort": sortKey && state.sort === sortKey ? (state.order === "asc" ? "ascending" : "descending") : null },
          sortKey
            ? h(
                "button",
                { type: "button", class: "sort", onClick: () => sortBy(sortKey) },
                label,
                state.sort === sortKey ? (state.order === "asc" ? " ▲" : " ▼") : "",
              )
            : label,
        ),
      ),
      h("th", { scope: "col" }, "Actions"),
    );
    const body = state.items.map((e) =>
      h(
        "tr",
        {},
        h("td", {}, e.name, h("br"), h("small", { class: "muted" }, e.slug)),
        h("td", {}, e.type),
        h("td", { class: "num" }, e.maxPassengers),
        h("td", { class: "num" }, e.maxLuggage ?? "—"),
        h("td", {}, e.airports.join(" ")),
        h("td", { class: "num" }, e.minimum_rate.toFixed(2)),
        h("td", { class: "num" }, e.hourly_rate.toFixed(2)),
        h("td", {}, e.currency),
        h("td", {}, e.active ? "yes" : "no"),
        h("td", {}, h("small", {}, when(e.updatedAt))),
        h(
          "td",
          { class: "actions" },
          h("button", { type: "button", onClick: () => edit(e), "aria-label": `Edit ${e.name}` }, "Edit"),
          " ",
          h("a", { href: `#/availability/${encodeURIComponent(e.slug)}`, "aria-label": `Availability of ${e.name}` }, "Availability"),
          " ",
          h("button", { type: "button", class: "danger", "aria-label": `Delete ${e.name}`, onClick: () => remove(e) }, "Delete"),
        ),
      ),
    );
    const first = state.total === 0 ? 0 : state.offset + 1;
    const last = state.offset + state.items.length;
    const filtered = state.q || state.type || state.active;
    tableBox.replaceChildren(
      h(
        "table",
        { "aria-label": "Fleet" },
        h(
          "caption",
          {},
          state.total === 0
            ? filtered
              ? "No entry matches these filters."
              : "No vehicles yet: add one, or import a CSV or JSON file below."
            : `${n(first)}–${n(last)} of ${n(state.total)} ${filtered ? "matching " : ""}${state.total === 1 ? "entry" : "entries"}`,
        ),
        h("thead", {}, header),
        h("tbody", {}, body),
      ),
    );
    const pages = Math.max(1, Math.ceil(state.total / PAGE));
    const page = Math.floor(state.offset / PAGE) + 1;
    const go = (offset) => ((state.offset = offset), reload());
    pager.replaceChildren(
      h("button", { type: "button", disabled: state.offset === 0, onClick: () => go(0) }, "First page"),
      h("button", { type: "button", disabled: state.offset === 0, onClick: () => go(Math.max(0, state.offset - PAGE)) }, "Previous page"),
      h("span", { class: "muted", "aria-live": "polite" }, `Page ${n(page)} of ${n(pages)}`),
      h("button", { type: "button", disabled: last >= state.total, onClick: () => go(state.offset + PAGE) }, "Next page"),
      h("button", { type: "button", disabled: last >= state.total, onClick: () => go((pages - 1) * PAGE) }, "Last page"),
    );
  }

  let loading = 0;
  async function reload() {
    const mine = ++loading;
    try {
      const page = (await api.core("GET", `/api/fleet?${listingQuery(state)}`)).data;
      if (mine !== loading) return;
      // An offset past the end (entries deleted meanwhile): back to the last page.
      if (page.items.length === 0 && page.total > 0 && state.offset > 0) return ((state.offset = Math.floor((page.total - 1) / PAGE) * PAGE), reload());
      Object.assign(state, { items: page.items, total: page.total });
      draw();
      mapStale = true;
      if (mapShown) drawMap();
    } catch (error) {
      showError(status, error);
    }
  }

  /** The map: the located entries that pass the table's filters, up to MAP_MAX of them. */
  async function drawMap() {
    if (!mapStale) return;
    mapStale = false;
    const points = [];
    let total = 0;
    for (let offset = 0; offset < MAP_MAX; offset += 100) {
      const page = (await api.core("GET", `/api/fleet?${listingQuery({ ...state, offset }, { limit: "100", sort: "slug", order: "asc" })}`)).data;
      total = page.total;
      points.push(...page.items.filter((e) => e.lat != null && e.lon != null));
      if (offset + 100 >= total) break;
    }
    const read = Math.min(total, MAP_MAX);
    drawFleetMap(
      mapBox,
      points.map((e) => ({ lat: e.lat, lon: e.lon, label: `${e.name} (${e.type})` })),
      { caption: `Your fleet: ${points.length} located entries${read < total ? ` among the first ${read} of ${total}` : ""}` },
    );
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
    editor.replaceChildren(
      entryForm(
        entry,
        async (saved) => {
          editor.replaceChildren();
          status.textContent = `${entry ? "Saved" : "Added"} ${saved.name}.`;
          await reload();
        },
        () => editor.replaceChildren(),
      ),
    );
    editor.querySelector("input")?.focus();
  }

  const tablePanel = h(
    "section",
    { "aria-labelledby": "fleet-list" },
    h("h2", { id: "fleet-list", class: "visually-hidden" }, "Your vehicles"),
    h(
      "div",
      { class: "toolbar" },
      field("Filter", q),
      field("Type", typeIn),
      typeList,
      field("Status", activeSel),
      h("button", { type: "button", class: "primary", onClick: () => edit(undefined) }, "Add vehicle"),
    ),
    editor,
    pager,
    tableBox,
    h("section", { "aria-labelledby": "fleet-import" }, h("h2", { id: "fleet-import" }, "Import"), importBox),
  );
  const mapPanel = h(
    "section",
    { "aria-labelledby": "fleet-map" },
    h("h2", { id: "fleet-map", class: "visually-hidden" }, "Map"),
    h("p", { class: "muted" }, "The located entries that pass the table's filters."),
    mapBox,
  );
  main.replaceChildren(
    h("h1", {}, "Fleet"),
    status,
    ...tabs("Fleet views", [
      ["Table", tablePanel, () => (mapShown = false)],
      ["Map", mapPanel, () => ((mapShown = true), drawMap())],
      ["Search", searchPanel(), () => (mapShown = false)],
    ]),
  );
  await reload();
}
