// Bookings: the company's bookings as requester and provider, filtered by status, role, reservation number and
// pickup dates, newest first, 25 a page. The list follows the event stream: statuses change and new trips appear
// (highlighted) without a click.
import { h, count, field, select, showError } from "./dom.js";
import * as api from "./api.js";
import { fullId, zonedTime } from "./format.js";
import * as live from "./live.js";
import { AWAITING, countdown, ownReasonText } from "./offers.js";

const PAGE = 25;
const filters = { status: "", role: "", requesterResNo: "", from: "", to: "", offset: 0 };
const filtered = () => Boolean(filters.status || filters.role || filters.requesterResNo || filters.from || filters.to);

function emptyState() {
  if (filtered() || filters.offset > 0)
    return h("p", { class: "empty" }, "No booking matches these filters. Change or clear them (empty every field, then Apply filters).");
  const operator = api.company()?.coType === "IO";
  return h(
    "div",
    { class: "empty" },
    h("p", {}, h("strong", {}, "No bookings yet.")),
    operator
      ? h(
          "p",
          {},
          "Trips that booking companies send you appear here as they arrive, with a badge on Bookings; nothing to reload. Make sure your fleet lists " +
            "the airports and positions you serve (Fleet).",
        )
      : h(
          "p",
          {},
          "Book a ride with ",
          h("a", { href: "#/newtrip" }, "New trip"),
          " (a price from every operator serving the pickup), or send trips through the API (",
          h("a", { href: "/docs" }, "docs"),
          "). They appear here and update as operators move them.",
        ),
  );
}

/**
 * A provider's requests awaiting its acceptance (NEW or PENDING), soonest acceptBy first, with the time left: the
 * list reads no acceptBy, so each request's own read gives it (the first 25 of each status).
 */
async function awaitingTable() {
  const lists = await Promise.all(
    AWAITING.map((s) => api.core("GET", `/api/reservations?${new URLSearchParams({ role: "provider", status: s, limit: String(PAGE) })}`)),
  );
  const items = lists.flatMap((l) => l.data.items);
  if (!items.length) return null;
  const reads = await Promise.all(items.map((b) => api.core("GET", `/api/reservation/${encodeURIComponent(b.transactionId)}`).catch(() => null)));
  const rows = reads
    .map((r, i) => ({ ...items[i], pickupZone: items[i].pickupZone, acceptBy: r?.data?.acceptBy }))
    .sort((a, b) => (Date.parse(a.acceptBy ?? "") || Infinity) - (Date.parse(b.acceptBy ?? "") || Infinity));
  return h(
    "table",
    { "aria-label": "Awaiting your acceptance", class: "bookings awaiting" },
    h("caption", {}, `${count(rows.length, "request")} awaiting your acceptance, the soonest deadline first`),
    h("thead", {}, h("tr", {}, ["Booking", "Requester", "Status", "Pickup (local time)", "Accept within"].map((c) => h("th", { scope: "col" }, c)))),
    h(
      "tbody",
      {},
      rows.map((b) =>
        h(
          "tr",
          // Not data-id: the main list's row of the same booking keeps that name to itself.
          { "data-awaiting": b.transactionId },
          h("td", {}, h("a", { href: `#/bookings/${b.transactionId}`, "aria-label": `Open request ${b.sourceResNo}` }, b.sourceResNo)),
          h("td", {}, b.fromConextId),
          h("td", {}, h("span", { class: `badge s-${b.lastStatus}` }, b.lastStatus)),
          h("td", {}, zonedTime(b.pickupDate, b.pickupZone)),
          h("td", { class: "accept-left" }, b.acceptBy ? countdown(b.acceptBy) : "—"),
        ),
      ),
    ),
  );
}

/**
 * A provider's lost offers (docs/terms.md#who-sees-what): requests whose offer ended — it declined, let acceptBy pass,
 * gave the trip back, or the cascade moved it to another operator — read-only, each opening its own offer.
 */
async function lostTable() {
  const items = (await api.core("GET", "/api/reservations/lost?limit=25")).data.items;
  if (!items.length) return null;
  const caption = `${count(items.length, "offer")} you lost in the last day: declined, not accepted in time, given back or moved on (read-only)`;
  const rows = items.map((o) =>
    h(
      "tr",
      { "data-lost": o.transactionId },
      h("td", {}, h("a", { href: `#/bookings/${o.transactionId}`, "aria-label": `Open lost offer ${o.requesterResNo}` }, o.requesterResNo)),
      h("td", {}, o.requesterId),
      h("td", { class: "num" }, o.fee != null ? `${o.fee} ${o.currency ?? ""}`.trim() : "—"),
      h("td", {}, ownReasonText(o.reason)),
      h("td", {}, zonedTime(o.endedAt, "UTC")),
    ),
  );
  const columns = ["Booking", "Requester", "Your fee", "Why it ended", "Ended"].map((c) => h("th", { scope: "col" }, c));
  const head = h("thead", {}, h("tr", {}, columns));
  const table = h("table", { "aria-label": "Lost offers", class: "bookings lost" }, h("caption", {}, caption), head, h("tbody", {}, rows));
  return h("section", { "aria-labelledby": "lost-h" }, h("h2", { id: "lost-h" }, "Lost offers"), table);
}

export async function bookingsPage(main) {
  const states = (await api.open("GET", "/api/trip-states")).data.states.map((s) => s.status);
  const status = select("status", [["", "Any status"], ...states], filters.status);
  const role = select(
    "role",
    [
      ["", "Either role"],
      ["requester", "Requester"],
      ["provider", "Provider"],
    ],
    filters.role,
  );
  const resNo = h("input", { name: "requesterResNo", value: filters.requesterResNo });
  const from = h("input", { type: "date", name: "from", value: filters.from });
  const to = h("input", { type: "date", name: "to", value: filters.to });
  const list = h("div", { class: "tablebox" });
  const awaiting = h("div", { class: "tablebox" });
  const lost = h("div", { class: "tablebox" });

  async function load() {
    const params = new URLSearchParams({ limit: String(PAGE), offset: String(filters.offset) });
    for (const k of ["status", "role", "requesterResNo"]) if (filters[k]) params.set(k, filters[k]);
    if (filters.from) params.set("pickupFrom", filters.from);
    if (filters.to) params.set("pickupTo", filters.to);
    let data;
    try {
      data = (await api.core("GET", `/api/reservations?${params}`)).data;
    } catch (error) {
      return showError(list, error);
    }
    const items = data.items;
    const { netid } = api.me();
    if (main.isConnected) live.markListSeen();
    // A provider sees the requests awaiting its answer first, by deadline (not while filters narrow the list).
    if (api.company()?.coType !== "CO" && !filtered()) {
      awaitingTable()
        .then((t) => awaiting.replaceChildren(...(t ? [t] : [])))
        .catch(() => awaiting.replaceChildren());
      lostTable()
        .then((t) => lost.replaceChildren(...(t ? [t] : [])))
        .catch(() => lost.replaceChildren());
    }
    if (!items.length) return list.replaceChildren(emptyState());
    list.replaceChildren(
      h(
        "table",
        { "aria-label": "Bookings", class: "bookings" },
        h("caption", {}, `${count(data.total, "booking")}; ${data.offset + 1}–${data.offset + data.items.length} shown · updates live`),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Booking", "Role", "Requester", "Provider", "Provider no.", "Status", "Pickup (local time)", "Type"].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          {},
          items.map((b) => {
            const fresh = live.isNew(b.transactionId);
            return h(
              "tr",
              { class: fresh ? "fresh" : null, "data-id": b.transactionId },
              h(
                "td",
                {},
                h("a", { href: `#/bookings/${b.transactionId}`, "aria-label": `Open booking ${b.sourceResNo}` }, b.sourceResNo),
                fresh ? h("span", { class: "badge newtrips" }, "New") : null,
                h("div", {}, fullId(b.transactionId, "booking id")),
              ),
              h("td", {}, b.fromConextId === netid ? "requester" : "provider"),
              h("td", {}, b.fromConextId),
              h("td", {}, b.toConextId),
              h("td", {}, b.targetResNo ?? ""),
              h("td", {}, h("span", { class: `badge s-${b.lastStatus}` }, b.lastStatus)),
              h("td", {}, zonedTime(b.pickupDate, b.pickupZone)),
              h("td", {}, b.reservationType),
            );
          }),
        ),
      ),
      h(
        "div",
        { class: "toolbar" },
        h(
          "button",
          { type: "button", disabled: filters.offset === 0, onClick: () => ((filters.offset = Math.max(0, filters.offset - PAGE)), load()) },
          "Previous page",
        ),
        h("button", { type: "button", disabled: filters.offset + PAGE >= data.total, onClick: () => ((filters.offset += PAGE), load()) }, "Next page"),
      ),
    );
  }

  // Booking events reload the shown page (a burst of them once); positions change nothing here. A request whose offer
  // ended leaves the lists at once, before the reload lists it among the lost offers.
  let pending = 0;
  live.follow(main, (type, body) => {
    if (type === "chauffeur.position") return;
    const withdrawn = type === "booking.withdrawn" ? body?.data?.transactionId : undefined;
    if (withdrawn) for (const row of main.querySelectorAll(`[data-awaiting="${withdrawn}"], [data-id="${withdrawn}"]`)) row.remove();
    clearTimeout(pending);
    pending = setTimeout(() => main.isConnected && load(), 250);
  });

  const form = h(
    "form",
    {
      class: "toolbar",
      "aria-label": "Booking filters",
      onSubmit: (e) => {
        e.preventDefault();
        Object.assign(filters, { status: status.value, role: role.value, requesterResNo: resNo.value.trim(), from: from.value, to: to.value, offset: 0 });
        load();
      },
    },
    field("Status", status),
    field("Role", role),
    field("Reservation number", resNo),
    field("Pickup from", from),
    field("Pickup to", to),
    h("button", { type: "submit" }, "Apply filters"),
  );

  main.replaceChildren(h("h1", {}, "Bookings"), awaiting, form, list, lost);
  await load();
}
