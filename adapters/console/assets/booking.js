// One booking: the trip, passengers, stops and notes; the changeLogs timeline; transaction errors; the chauffeur's
// last position on the map; the provider's legal next statuses and the requester's cancel.
import { h, field, showError, statusLine, when } from "./dom.js";
import * as api from "./api.js";
import { drawMap, bookingPlaces } from "./map.js";

let lifecycle;
async function states() {
  lifecycle ??= api.open("GET", "/api/trip-states").then((r) => new Map(r.data.states.map((s) => [s.status, s])));
  return lifecycle;
}

const num = (v) => (v === undefined || v === null || v === "" ? undefined : Number(v));

function place(label, loc) {
  if (!loc) return null;
  const text = [loc.locationType && `(${loc.locationType})`, loc.address, loc.address1, loc.city, loc.landmark].filter(Boolean).join(" ");
  return h("div", {}, h("dt", {}, label), h("dd", {}, text || "—", loc.time ? ` · ${loc.time}` : "", loc.specialInstructions ? h("div", { class: "muted" }, loc.specialInstructions) : null));
}

export async function bookingPage(main, id) {
  const [res, lc] = await Promise.all([api.core("GET", `/api/reservation/${encodeURIComponent(id)}`), states()]);
  const b = res.data;
  const t = b.tripPacket;
  const { netid } = api.me();
  const provider = b.toConextId === netid;
  const requester = b.fromConextId === netid;
  const status = statusLine();
  const actions = h("div", { class: "toolbar" });
  const current = lc.get(b.lastStatus);

  const reload = () => bookingPage(main, id);
  const act = async (label, fn) => {
    status.textContent = `${label}…`;
    try {
      await fn();
      status.textContent = `${label}: done.`;
      await reload();
    } catch (error) {
      showError(status, error);
    }
  };

  if ((provider || requester) && current && !current.terminal && !api.canMoveTrips())
    actions.append(h("p", { class: "muted" }, "Status changes go through the platform API, which this server serves on another port (PLATFORM_PORT)."));
  else if (provider && current && !current.terminal) {
    const targets = [...new Set([...current.next, ...(current.skipTo ?? [])])].filter((s) => s !== "CANCEL");
    const chfFirst = h("input", { name: "chauffeurFirstName" });
    const chfLast = h("input", { name: "chauffeurLastName" });
    const plate = h("input", { name: "plateNo" });
    const resNo = h("input", { name: "providerResNo", value: b.targetResNo ?? "" });
    const note = h("input", { name: "providerNote" });
    const details = () => {
      const body = {};
      if (resNo.value.trim()) body.providerResNo = resNo.value.trim();
      if (note.value.trim()) body.providerNote = note.value.trim();
      if (chfFirst.value.trim() || chfLast.value.trim()) body.chauffeur = { firstName: chfFirst.value.trim(), lastName: chfLast.value.trim() };
      if (plate.value.trim()) body.vehicle = { plateNo: plate.value.trim() };
      return body;
    };
    actions.append(
      h("fieldset", {}, h("legend", {}, "Update as the provider"),
        h("div", { class: "grid" }, field("Your reservation number", resNo), field("Chauffeur first name", chfFirst), field("Chauffeur last name", chfLast), field("Plate number", plate), field("Note to the requester", note)),
        h("div", { class: "toolbar" }, targets.map((s) => h("button", { type: "button", class: "primary", onClick: () => act(`Move to ${s}`, () => api.platform("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${b.transactionId}/V1`, { status: s, ...details() })) }, `Move to ${s}`)))),
    );
  }
  if (requester && api.canMoveTrips() && current?.next.includes("CANCEL"))
    actions.append(h("button", { type: "button", class: "danger", onClick: () => confirm("Cancel this trip?") && act("Cancel trip", () => api.platform("POST", `/Platform.svc/cancelTripByTransactionId/${b.transactionId}/V1`)) }, "Cancel trip"));

  const pickup = t.locations?.pickup, drop = t.locations?.dropOff;
  const where = h("div");
  const logs = t.changeLogs ?? [];
  const errors = t.transactionErrors ?? [];
  // The requester watches a trip under way: the page follows it every 5 s while it shows this booking.
  if (requester && !provider && current && !current.terminal) {
    const shown = location.hash;
    setTimeout(() => {
      const typing = main.contains(document.activeElement) && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
      if (main.isConnected && location.hash === shown && !typing) reload().catch(() => {});
    }, 5000);
  }
  main.replaceChildren(
    h("p", {}, h("a", { href: "#/bookings" }, "← Bookings"), " ", h("button", { type: "button", onClick: () => reload() }, "Refresh")),
    h("h1", {}, `Booking ${b.sourceResNo}`),
    status,
    h("p", {}, h("span", { class: `badge s-${b.lastStatus}` }, b.lastStatus), ` ${t.resStatus ?? ""} · ${provider ? "you are the provider" : "you are the requester"} · ${b.fromConextId} → ${b.toConextId}`),
    actions,
    h("div", { class: "cols" },
      h("section", { "aria-labelledby": "trip-h" }, h("h2", { id: "trip-h" }, "Trip"),
        h("dl", { class: "facts" },
          h("div", {}, h("dt", {}, "Transaction"), h("dd", {}, b.transactionId)),
          h("div", {}, h("dt", {}, "Reservation numbers"), h("dd", {}, `${b.sourceResNo} / ${b.targetResNo ?? "—"}`)),
          h("div", {}, h("dt", {}, "Type"), h("dd", {}, `${t.reservationType} ${t.runType ?? ""}`)),
          h("div", {}, h("dt", {}, "Pickup time"), h("dd", {}, when(b.pickupDate))),
          h("div", {}, h("dt", {}, "Passengers / luggage"), h("dd", {}, `${t.passengerCount} / ${t.luggageCount ?? "not specified"}`)),
          h("div", {}, h("dt", {}, "Vehicle type"), h("dd", {}, t.preferredVehicleType || "—")),
          h("div", {}, h("dt", {}, "Total"), h("dd", {}, t.totalAmount ?? "—")),
          place("Pickup", pickup), ...(t.locations?.stops ?? []).map((s, i) => place(`Stop ${i + 1}`, s)), place("Drop-off", drop),
          t.specialInstructions ? h("div", {}, h("dt", {}, "Special instructions"), h("dd", {}, t.specialInstructions)) : null,
          t.chauffeur ? h("div", {}, h("dt", {}, "Chauffeur"), h("dd", {}, [t.chauffeur.firstName, t.chauffeur.lastName].filter(Boolean).join(" ") || "—")) : null,
          t.vehicle ? h("div", {}, h("dt", {}, "Vehicle"), h("dd", {}, [t.vehicle.make, t.vehicle.model, t.vehicle.plateNo ?? t.vehicle.licensePlate].filter(Boolean).join(" ") || "—")) : null,
        ),
        h("h3", {}, "Passengers"),
        h("ul", {}, (t.passengers ?? []).map((p) => h("li", {}, `${p.firstName ?? ""} ${p.lastName ?? ""}`, (p.phones ?? []).length ? ` · ${p.phones.map((x) => x.number).join(", ")}` : p.phoneNumber ? ` · ${p.phoneNumber}` : ""))),
        (t.notes ?? []).length ? [h("h3", {}, "Notes"), h("ul", {}, t.notes.map((n) => h("li", {}, `${n.context ? `[${n.context}] ` : ""}${n.message}`)))] : null,
      ),
      h("section", { "aria-labelledby": "map-h" }, h("h2", { id: "map-h" }, "Where"), where),
    ),
    h("section", { "aria-labelledby": "timeline-h" }, h("h2", { id: "timeline-h" }, "Timeline"),
      h("ol", { class: "timeline", "aria-label": "Timeline" }, logs.map((l) => h("li", {}, h("time", {}, l.timestamp), " ", h("span", { class: "muted" }, l.changeSource), " — ", l.changeDesc)))),
    h("section", { "aria-labelledby": "errors-h" }, h("h2", { id: "errors-h" }, "Transaction errors"),
      errors.length ? h("ul", {}, errors.map((e) => h("li", {}, `${e.timestamp} ${e.errCode}: ${e.errDesc}`))) : h("p", { class: "muted" }, "None.")),
  );
  drawMap(where, { ...bookingPlaces(b, res.places), caption: t.location ? `Chauffeur's last position: ${t.location.lat}, ${t.location.lon} at ${t.location.timestamp}` : "No chauffeur position yet" });
}
