// Bookings: the company's bookings as requester and provider, filtered by status, role, reservation number and
// pickup dates, newest first, 25 a page.
import { h, count, field, select, showError, when } from "./dom.js";
import * as api from "./api.js";

const PAGE = 25;
const filters = { status: "", role: "", requesterResNo: "", from: "", to: "", offset: 0 };

export async function bookingsPage(main) {
  const states = (await api.open("GET", "/api/trip-states")).data.states.map((s) => s.status);
  const status = select("status", [["", "Any status"], ...states], filters.status);
  const role = select("role", [["", "Either role"], ["requester", "Requester"], ["provider", "Provider"]], filters.role);
  const resNo = h("input", { name: "requesterResNo", value: filters.requesterResNo });
  const from = h("input", { type: "date", name: "from", value: filters.from });
  const to = h("input", { type: "date", name: "to", value: filters.to });
  const list = h("div", { class: "tablebox" });

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
    list.replaceChildren(
      h("table", { "aria-label": "Bookings" },
        h("caption", {}, `${count(data.total, "booking")}; ${data.offset + 1}–${data.offset + data.items.length} shown`),
        h("thead", {}, h("tr", {}, ["Booking", "Role", "Requester", "Provider", "Requester no.", "Provider no.", "Status", "Pickup", "Type"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, items.map((b) =>
          h("tr", {},
            h("td", {}, h("a", { href: `#/bookings/${b.transactionId}`, "aria-label": `Open booking ${b.sourceResNo}` }, b.transactionId.slice(0, 8))),
            h("td", {}, b.fromConextId === netid ? "requester" : "provider"), h("td", {}, b.fromConextId), h("td", {}, b.toConextId),
            h("td", {}, b.sourceResNo), h("td", {}, b.targetResNo ?? ""), h("td", {}, h("span", { class: `badge s-${b.lastStatus}` }, b.lastStatus)),
            h("td", {}, when(b.pickupDate)), h("td", {}, b.reservationType),
          )))),
      h("div", { class: "toolbar" },
        h("button", { type: "button", disabled: filters.offset === 0, onClick: () => ((filters.offset = Math.max(0, filters.offset - PAGE)), load()) }, "Previous page"),
        h("button", { type: "button", disabled: filters.offset + PAGE >= data.total, onClick: () => ((filters.offset += PAGE), load()) }, "Next page")),
    );
  }

  const form = h("form", {
    class: "toolbar", "aria-label": "Booking filters",
    onSubmit: (e) => {
      e.preventDefault();
      Object.assign(filters, { status: status.value, role: role.value, requesterResNo: resNo.value.trim(), from: from.value, to: to.value, offset: 0 });
      load();
    },
  }, field("Status", status), field("Role", role), field("Reservation number", resNo), field("Pickup from", from), field("Pickup to", to), h("button", { type: "submit" }, "Apply filters"));

  main.replaceChildren(h("h1", {}, "Bookings"), form, list);
  await load();
}
