// Availability (#/availability/<slug>): one vehicle's blackouts (list, add, remove: /api/fleet/{slug}/blackouts) and
// its schedule as a day or week view (GET /api/fleet/{slug}/schedule): the live bookings and blackouts holding it.
// Times are UTC, as the API gives them.
import { h, field, select, showError, statusLine, submitForm } from "./dom.js";
import * as api from "./api.js";
import { bound, showFieldErrors } from "./field-errors.js";

const DAY = 86_400_000;
const path = (slug, rest = "") => `/api/fleet/${encodeURIComponent(slug)}${rest}`;
/** "2030-05-01T06:00:00Z" → "2030-05-01 06:00". */
const utc = (iso) => iso.slice(0, 16).replace("T", " ");
/** A datetime-local value read as UTC ("2030-05-01T06:00" → "2030-05-01T06:00:00Z"); empty → undefined. */
const asUtc = (v) => (v ? `${v.length === 16 ? `${v}:00` : v}Z` : undefined);
const dayStart = (ms) => Math.floor(ms / DAY) * DAY;
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/** The vehicle picker: a filter and up to 50 of your vehicles matching it; `onPick(slug)` on a choice. */
function vehiclePicker(initial, onPick) {
  const q = h("input", { name: "vehicleFilter", type: "search", placeholder: "name or slug" });
  const choice = h("select", { name: "vehicle" });
  const fill = async () => {
    const params = new URLSearchParams({ limit: "50", sort: "name", order: "asc" });
    if (q.value.trim()) params.set("q", q.value.trim());
    const items = (await api.core("GET", `/api/fleet?${params}`)).data.items;
    const current = choice.value || initial;
    const options = items.map((v) => h("option", { value: v.slug, selected: v.slug === current }, `${v.name} · ${v.type} · ${v.slug}`));
    if (current && !items.some((v) => v.slug === current)) options.unshift(h("option", { value: current, selected: true }, current));
    choice.replaceChildren(...options);
  };
  q.addEventListener("change", fill);
  choice.addEventListener("change", () => onPick(choice.value));
  return { box: h("div", { class: "grid" }, field("Find a vehicle", q), field("Vehicle", choice)), fill, value: () => choice.value };
}

function blackoutsBox(slug, onChange) {
  const status = statusLine();
  const problem = h("div");
  const list = h("div", { class: "tablebox" });
  const from = bound("from", h("input", { type: "datetime-local", name: "blackoutFrom" }));
  const to = bound("to", h("input", { type: "datetime-local", name: "blackoutTo" }));
  const reason = bound("reason", h("input", { name: "blackoutReason", maxlength: 500, placeholder: "Annual service" }));
  const load = async () => {
    const items = (await api.core("GET", path(slug, "/blackouts"))).data;
    list.replaceChildren(
      items.length
        ? h(
            "table",
            { "aria-label": "Blackouts" },
            h("thead", {}, h("tr", {}, ["From (UTC)", "To (UTC)", "Reason", ""].map((c) => h("th", { scope: "col" }, c)))),
            h(
              "tbody",
              {},
              items.map((b) =>
                h(
                  "tr",
                  {},
                  h("td", {}, utc(b.from)),
                  h("td", {}, utc(b.to)),
                  h("td", {}, b.reason ?? ""),
                  h(
                    "td",
                    {},
                    h("button", { type: "button", class: "danger", "aria-label": `Remove blackout ${utc(b.from)}`, onClick: () => remove(b) }, "Remove"),
                  ),
                ),
              ),
            ),
          )
        : h("p", { class: "empty" }, "No blackouts: the vehicle is offered whenever no booking holds it."),
    );
  };
  const remove = async (b) => {
    try {
      await api.core("DELETE", path(slug, `/blackouts/${encodeURIComponent(b.id)}`));
      status.textContent = "Blackout removed.";
      await load();
      onChange();
    } catch (error) {
      showError(problem, error);
    }
  };
  const form = submitForm(
    {
      "aria-label": "Add a blackout",
    },
    async () => {
      const body = { from: asUtc(from.value), to: asUtc(to.value) };
      if (reason.value.trim()) body.reason = reason.value.trim();
      try {
        await api.core("POST", path(slug, "/blackouts"), body);
        showFieldErrors(form, problem, null);
        status.textContent = "Blackout added.";
        reason.value = "";
        await load();
        onChange();
      } catch (error) {
        status.textContent = "";
        showFieldErrors(form, problem, error);
      }
    },
    h("div", { class: "grid" }, field("From (UTC)", from), field("To (UTC)", to), field("Reason", reason, "Optional")),
    problem,
    h("div", { class: "toolbar" }, h("button", { type: "submit", class: "primary" }, "Add blackout")),
  );
  return { box: h("section", { "aria-labelledby": "blackouts-h" }, h("h2", { id: "blackouts-h" }, "Blackouts"), status, list, form), load };
}

/** One day's row: a 24-hour bar with each hold drawn on it, and the holds listed. */
function dayRow(start, holds) {
  const end = start + DAY;
  const mine = holds.filter((x) => Date.parse(x.from) < end && Date.parse(x.to) > start);
  const bar = h("div", { class: "daybar", "aria-hidden": "true" });
  for (const x of mine) {
    const a = Math.max(Date.parse(x.from), start);
    const b = Math.min(Date.parse(x.to), end);
    const seg = h("span", { class: `hold hold-${x.kind.toLowerCase()}`, title: `${utc(x.from)} – ${utc(x.to)}` });
    seg.style.left = `${((a - start) / DAY) * 100}%`;
    seg.style.width = `${Math.max(0.5, ((b - a) / DAY) * 100)}%`;
    bar.append(seg);
  }
  const label = new Date(start).toLocaleDateString("en-GB", { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" });
  return h(
    "tr",
    {},
    h("th", { scope: "row" }, label, h("div", { class: "muted" }, isoDay(start))),
    h(
      "td",
      {},
      bar,
      mine.length
        ? h(
            "ul",
            { class: "holds" },
            mine.map((x) =>
              h(
                "li",
                {},
                h("span", { class: `badge hold-${x.kind.toLowerCase()}` }, x.kind === "BOOKING" ? "Booking" : "Blackout"),
                ` ${utc(x.from)} – ${utc(x.to)} `,
                x.kind === "BOOKING" ? h("a", { href: `#/bookings/${encodeURIComponent(x.transactionId)}` }, x.transactionId) : (x.reason ?? ""),
              ),
            ),
          )
        : h("span", { class: "muted" }, "Free"),
    ),
  );
}

function scheduleBox(slug) {
  const problem = h("div");
  const view = select("view", [["week", "Week"], ["day", "Day"]], "week");
  const date = h("input", { type: "date", name: "scheduleDate", value: isoDay(Date.now()) });
  const body = h("div", { class: "tablebox" });
  const caption = h("p", { class: "muted" });
  const days = () => (view.value === "week" ? 7 : 1);
  const load = async () => {
    const start = Date.parse(`${date.value || isoDay(Date.now())}T00:00:00Z`);
    const from = new Date(start).toISOString().replace(".000", "");
    const to = new Date(start + days() * DAY).toISOString().replace(".000", "");
    try {
      const data = (await api.core("GET", `${path(slug, "/schedule")}?from=${from}&to=${to}`)).data;
      problem.replaceChildren();
      caption.textContent = `${data.holds.length === 1 ? "1 hold" : `${data.holds.length} holds`} from ${utc(data.from)} to ${utc(data.to)} UTC.`;
      body.replaceChildren(
        h(
          "table",
          { "aria-label": "Schedule", class: "schedule" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day (UTC)"), h("th", { scope: "col" }, "00:00 ··· 12:00 ··· 24:00"))),
          h("tbody", {}, Array.from({ length: days() }, (_, i) => dayRow(start + i * DAY, data.holds))),
        ),
      );
    } catch (error) {
      showError(problem, error);
    }
  };
  const move = (sign) => {
    const start = Date.parse(`${date.value || isoDay(Date.now())}T00:00:00Z`);
    date.value = isoDay(dayStart(start + sign * days() * DAY));
    load();
  };
  view.addEventListener("change", load);
  date.addEventListener("change", load);
  const controls = h(
    "div",
    { class: "toolbar" },
    field("View", view),
    field("Starting (UTC day)", date),
    h("button", { type: "button", onClick: () => move(-1) }, "Previous"),
    h("button", { type: "button", onClick: () => move(1) }, "Next"),
  );
  return {
    box: h("section", { "aria-labelledby": "schedule-h" }, h("h2", { id: "schedule-h" }, "Schedule"), controls, caption, problem, body),
    load,
  };
}

/** The company-wide rules of availability: integration settings turnaroundMinutes and minimumNoticeMinutes. */
async function rulesBox() {
  const v = (await api.core("GET", "/api/company/integration")).data;
  const status = statusLine();
  const problem = h("div");
  const minutes = (name, value, max) => bound(name, h("input", { name, type: "number", min: 0, max, step: 1, value: String(value ?? "") }));
  const turnaround = minutes("turnaroundMinutes", v.turnaroundMinutes, 720);
  const notice = minutes("minimumNoticeMinutes", v.minimumNoticeMinutes, 10080);
  const whole = (el) => (el.value.trim() === "" ? null : Number(el.value));
  const form = submitForm(
    {
      "aria-label": "Booking rules",
      // The server checks the ranges and names each field (the browser's own checks would keep its message back).
      novalidate: true,
    },
    async () => {
      try {
        const saved = (await api.core("PUT", "/api/company/integration", { turnaroundMinutes: whole(turnaround), minimumNoticeMinutes: whole(notice) })).data;
        turnaround.value = String(saved.turnaroundMinutes);
        notice.value = String(saved.minimumNoticeMinutes);
        showFieldErrors(form, problem, null);
        status.textContent = "Booking rules saved.";
      } catch (error) {
        status.textContent = "";
        showFieldErrors(form, problem, error);
      }
    },
    h(
      "div",
      { class: "grid" },
      field("Turnaround (minutes)", turnaround, "A booked vehicle stays held this long after the trip's estimated end (0–720; empty: 30)"),
      field("Minimum notice (minutes)", notice, "A pickup sooner than this leaves you out of quotes (0–10,080; empty: 0)"),
    ),
    problem,
    h("div", { class: "toolbar" }, h("button", { type: "submit", class: "primary" }, "Save booking rules")),
  );
  return h("section", { "aria-labelledby": "rules-h" }, h("h2", { id: "rules-h" }, "Booking rules (all your vehicles)"), status, form);
}

export async function availabilityPage(main) {
  const initial = decodeURIComponent(location.hash.split("/")[2] ?? "");
  const content = h("div");
  const show = async (slug) => {
    if (!slug) return content.replaceChildren(h("p", { class: "empty" }, "You have no vehicles yet: add or import some under Fleet."));
    history.replaceState(null, "", `#/availability/${encodeURIComponent(slug)}`);
    const schedule = scheduleBox(slug);
    const blackouts = blackoutsBox(slug, () => schedule.load());
    content.replaceChildren(blackouts.box, schedule.box);
    try {
      await Promise.all([blackouts.load(), schedule.load()]);
    } catch (error) {
      showError(content, error);
    }
  };
  const picker = vehiclePicker(initial, show);
  main.replaceChildren(
    h("h1", {}, "Availability"),
    h(
      "p",
      { class: "muted" },
      "A vehicle is held by each live booking made from a quote (pickup to estimated end, plus your turnaround) and by " +
        "your blackouts; quotes leave a held vehicle out.",
    ),
    await rulesBox(),
    h("h2", {}, "One vehicle"),
    picker.box,
    content,
  );
  await picker.fill();
  await show(picker.value());
}
