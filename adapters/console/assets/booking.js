// One booking: the trip, passengers, stops and notes; the changeLogs timeline; transaction errors; the chauffeur's
// last position on the map; the provider's next statuses (Accept and Decline first for a new request; a final one
// asks first) and the requester's cancel. The page follows the event stream: a status change, an update or the
// chauffeur's move shows without a click, for both parties.
import { h, confirmDialog, field, showError, statusLine } from "./dom.js";
import * as api from "./api.js";
import { drawMap, bookingPlaces } from "./map.js";
import { fullId, zonedText, zonedTime } from "./format.js";
import * as live from "./live.js";
import { airportTrip } from "./flight.js";
import { cancelFeeNow, cancelFeeText, offerEnded, offersHistory, ownReasonText, priceSection, settlementFacts, termsFacts } from "./offers.js";

/** A new request's two answers, shown first; every other next status is "Move to <status>". */
const LABELS = { CONFIRMED: "Accept", REJECT: "Decline" };
const ordered = (targets) => [...targets.filter((s) => LABELS[s]), ...targets.filter((s) => !LABELS[s])];
/**
 * What the provider's page offers of the statuses the booking may move to next (the lookup's providerNext): not
 * CANCEL (a provider declines, REJECT; the requester cancels) nor FAILED (the exchange's, for a delivery that failed).
 */
const OFFERED = (s) => s !== "CANCEL" && s !== "FAILED";

/** The last action's outcome, kept a few seconds so the redraws its own events cause still show it. */
let notice = { id: "", text: "", until: 0 };

let lifecycle;
async function states() {
  lifecycle ??= api.open("GET", "/api/trip-states").then((r) => new Map(r.data.states.map((s) => [s.status, s])));
  return lifecycle;
}

const num = (v) => (v === undefined || v === null || v === "" ? undefined : Number(v));

/** A place; its time as sent, except the pickup's, which the page shows once, in its zone. */
function place(label, loc, showTime = true) {
  if (!loc) return null;
  const text = [loc.locationType && `(${loc.locationType})`, loc.address, loc.address1, loc.city, loc.landmark].filter(Boolean).join(" ");
  return h(
    "div",
    {},
    h("dt", {}, label),
    h(
      "dd",
      {},
      text || "—",
      showTime && loc.time ? ` · ${loc.time}` : "",
      loc.specialInstructions ? h("div", { class: "muted" }, loc.specialInstructions) : null,
    ),
  );
}

const typing = (where) => where.contains(document.activeElement) && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);

/** An ISO timestamp in the pickup's zone (UTC on hover); as sent when it does not parse. */
/** A chauffeur position's time (ISO or Unix seconds) as text in the pickup's zone. */
function chauffeurTime(at, zone) {
  const ms = typeof at === "number" ? at * 1000 : Date.parse(at);
  return Number.isFinite(ms) ? zonedText(Math.floor(ms / 1000), zone) : String(at);
}

function stamp(iso, zone) {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? zonedTime(Math.floor(ms / 1000), zone) : h("time", {}, iso);
}

export async function bookingPage(main, id) {
  const [res, lc] = await Promise.all([api.core("GET", `/api/reservation/${encodeURIComponent(id)}`), states()]);
  const b = res.data;
  const t = b.tripPacket;
  const zone = b.pickupZone || "UTC";
  live.markOpened(b.transactionId);
  // Each render draws into its own element: the stream's watcher of an earlier render ends with it.
  const page = h("div", { class: "page" });
  const { netid } = api.me();
  const provider = b.toConextId === netid;
  const requester = b.fromConextId === netid;
  const status = statusLine();
  if (notice.id === id && Date.now() < notice.until) status.textContent = notice.text;
  const actions = h("div", { class: "toolbar" });
  const current = lc.get(b.lastStatus);
  // A provider whose offer ended reads it, and may do nothing more with it.
  const lost = offerEnded(b, netid) && !requester;

  const reload = () => bookingPage(main, id);
  /** Runs `fn`, then says "label: done." (or what `describe` makes of its answer) and draws the booking again. */
  const act = async (label, fn, describe) => {
    status.textContent = `${label}…`;
    try {
      const answer = await fn();
      status.textContent = describe ? describe(answer) : `${label}: done.`;
      notice = { id, text: status.textContent, until: Date.now() + 5000 };
      await reload();
    } catch (error) {
      showError(status, error);
    }
  };

  if (lost)
    actions.append(
      h(
        "p",
        { class: "card offer-ended", role: "status" },
        `Your offer ended: ${ownReasonText(b.offers.find((o) => o.provider === netid).reason)}. Read-only: this booking is no longer yours to serve.`,
      ),
    );
  else if ((provider || requester) && current && !current.terminal && !api.canMoveTrips())
    actions.append(h("p", { class: "muted" }, "Status changes go through the platform API, which this server serves on another port (PLATFORM_PORT)."));
  else if (provider && current && !current.terminal) {
    const targets = (res.providerNext ?? []).filter((s) => OFFERED(s));
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
      h(
        "fieldset",
        {},
        h("legend", {}, "Update as the provider"),
        h(
          "div",
          { class: "grid" },
          field("Your reservation number", resNo),
          field("Chauffeur first name", chfFirst),
          field("Chauffeur last name", chfLast),
          field("Plate number", plate),
          field("Note to the requester", note),
        ),
        h(
          "div",
          { class: "toolbar", role: "group", "aria-label": "Status actions" },
          ordered(targets).map((s) => {
            const label = LABELS[s] ?? `Move to ${s}`;
            const send = () =>
              act(label, () => api.platform("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${b.transactionId}/V1`, { status: s, ...details() }));
            const final = lc.get(s)?.terminal;
            return h(
              "button",
              {
                type: "button",
                class: s === "REJECT" ? "danger" : s === "CONFIRMED" || !targets.includes("CONFIRMED") ? "primary" : null,
                onClick: async () => {
                  if (!final || (await confirmDialog(`${label}?`, `${s} is final: the booking cannot change status again.`, `Yes, ${label.toLowerCase()}`)))
                    send();
                },
              },
              label,
            );
          }),
        ),
      ),
    );
  }
  if (requester && api.canMoveTrips() && current?.next.includes("CANCEL"))
    actions.append(
      h(
        "button",
        {
          type: "button",
          class: "danger",
          // The dialog says what cancelling costs now (the booking's terms: cancel-fee) before anything is sent.
          onClick: async () =>
            (await confirmDialog(
              "Cancel this trip?",
              `${await cancelFeeText(b.transactionId)} CANCEL is final: the provider is told, and the booking cannot change status again.`,
              "Yes, cancel",
            )) &&
            act("Cancel trip", () => api.platform("POST", `/Platform.svc/cancelTripByTransactionId/${b.transactionId}/V1`)),
        },
        "Cancel trip",
      ),
    );

  const pickup = t.locations?.pickup,
    drop = t.locations?.dropOff;
  const where = h("div");
  const logs = t.changeLogs ?? [];
  const errors = t.transactionErrors ?? [];
  // Both parties follow the trip on the stream: its events and the chauffeur's positions redraw the page (at most
  // once a second); while a field of the page is being filled in, the redraw waits until focus leaves the form.
  const shown = location.hash;
  let timer = 0,
    lastDraw = Date.now(),
    waiting = false;
  const redraw = () => {
    if (!page.isConnected || location.hash !== shown) return;
    if (typing(page)) {
      waiting = true;
      status.textContent = "This booking changed: it updates when you leave the form (or press Refresh).";
      return;
    }
    reload().catch(() => {});
  };
  live.follow(page, (type, body) => {
    if (type !== "reset" && body?.data?.transactionId !== b.transactionId) return;
    clearTimeout(timer);
    timer = setTimeout(redraw, Math.max(0, 1000 - (Date.now() - lastDraw)));
  });
  page.addEventListener("focusout", () => setTimeout(() => waiting && !typing(page) && redraw(), 0));
  main.replaceChildren(page);
  page.replaceChildren(
    h("p", {}, h("a", { href: "#/bookings" }, "← Bookings"), " ", h("button", { type: "button", onClick: () => reload() }, "Refresh")),
    h("h1", {}, `Booking ${b.sourceResNo}`),
    h("p", { class: "ids" }, "Booking id ", fullId(b.transactionId, "booking id")),
    status,
    h(
      "p",
      {},
      h("span", { class: `badge s-${b.lastStatus}` }, b.lastStatus),
      ` ${t.resStatus ?? ""} · ${provider ? "you are the provider" : "you are the requester"} · ${b.fromConextId} → ${b.toConextId}`,
    ),
    actions,
    // What cancelling costs now and why (cancel-fee), beside the terms; the price as its fee lines.
    // A lost offer's page says why it ended above, and a cancel is no longer the provider's business.
    lost
      ? (termsFacts({ ...b, reason: undefined }, zone, null) ?? "")
      : (termsFacts(b, zone, t.reservationType === "QUOTE" ? null : cancelFeeNow(b.transactionId, zone)) ?? ""),
    priceSection(t),
    settlementFacts(t, zone) ?? "",
    // replaceChildren writes a null as the text "null": a booking with no airport section adds nothing.
    airportTrip(b, zone, { party: (provider || requester) && !lost, act }) ?? "",
    h(
      "div",
      { class: "cols" },
      h(
        "section",
        { "aria-labelledby": "trip-h" },
        h("h2", { id: "trip-h" }, "Trip"),
        h(
          "dl",
          { class: "facts" },
          h("div", {}, h("dt", {}, "Reservation numbers"), h("dd", {}, `${b.sourceResNo} / ${b.targetResNo ?? "—"}`)),
          h("div", {}, h("dt", {}, "Type"), h("dd", {}, `${t.reservationType} ${t.runType ?? ""}`)),
          h(
            "div",
            {},
            h("dt", {}, "Pickup time"),
            h("dd", { class: "pickup-time" }, zonedTime(b.pickupDate, zone), h("span", { class: "muted" }, ` · ${zone}`)),
          ),
          h("div", {}, h("dt", {}, "Passengers / luggage"), h("dd", {}, `${t.passengerCount} / ${t.luggageCount ?? "not specified"}`)),
          h("div", {}, h("dt", {}, "Vehicle type"), h("dd", {}, t.preferredVehicleType || "—")),
          h("div", {}, h("dt", {}, "Total"), h("dd", {}, t.totalAmount != null ? [t.totalAmount, currencySuffix(t)] : "—")),
          place("Pickup", pickup, false),
          ...(t.locations?.stops ?? []).map((s, i) => place(`Stop ${i + 1}`, s)),
          place("Drop-off", drop),
          t.specialInstructions ? h("div", {}, h("dt", {}, "Special instructions"), h("dd", {}, t.specialInstructions)) : null,
          t.chauffeur
            ? h("div", {}, h("dt", {}, "Chauffeur"), h("dd", {}, [t.chauffeur.firstName, t.chauffeur.lastName].filter(Boolean).join(" ") || "—"))
            : null,
          t.location
            ? h(
                "div",
                {},
                h("dt", {}, "Chauffeur's position"),
                h("dd", { class: "chauffeur-position" }, `${t.location.lat}, ${t.location.lon} · `, stamp(t.location.timestamp, zone)),
              )
            : null,
          t.vehicle
            ? h(
                "div",
                {},
                h("dt", {}, "Vehicle"),
                h("dd", {}, [t.vehicle.make, t.vehicle.model, t.vehicle.plateNo ?? t.vehicle.licensePlate].filter(Boolean).join(" ") || "—"),
              )
            : null,
        ),
        h("h3", {}, "Passengers"),
        h(
          "ul",
          {},
          (t.passengers ?? []).map((p) =>
            h(
              "li",
              {},
              `${p.firstName ?? ""} ${p.lastName ?? ""}`,
              (p.phones ?? []).length ? ` · ${p.phones.map((x) => x.number).join(", ")}` : p.phoneNumber ? ` · ${p.phoneNumber}` : "",
            ),
          ),
        ),
        (t.notes ?? []).length
          ? [
              h("h3", {}, "Notes"),
              h(
                "ul",
                {},
                t.notes.map((n) => h("li", {}, `${n.context ? `[${n.context}] ` : ""}${n.message}`)),
              ),
            ]
          : null,
      ),
      h("section", { "aria-labelledby": "map-h" }, h("h2", { id: "map-h" }, "Where"), where),
    ),
    h(
      "section",
      { "aria-labelledby": "timeline-h" },
      h("h2", { id: "timeline-h" }, "Timeline"),
      h(
        "ol",
        { class: "timeline", "aria-label": "Timeline" },
        logs.map((l) => h("li", {}, stamp(l.timestamp, zone), " ", h("span", { class: "muted" }, l.changeSource), " — ", l.changeDesc)),
      ),
    ),
    offersHistory(b, zone) ?? "",
    h(
      "section",
      { "aria-labelledby": "errors-h" },
      h("h2", { id: "errors-h" }, "Transaction errors"),
      errors.length
        ? h(
            "ul",
            {},
            errors.map((e) => h("li", {}, stamp(e.timestamp, zone), ` ${e.errCode}: ${e.errDesc}`)),
          )
        : h("p", { class: "muted" }, "None."),
    ),
  );
  drawMap(where, {
    ...bookingPlaces(b, res.places),
    caption: t.location
      ? `Chauffeur's last position: ${t.location.lat}, ${t.location.lon} at ${chauffeurTime(t.location.timestamp, zone)}`
      : "No chauffeur position yet",
  });
}

/** " USD" after a total: the currency of the first fee line, when it names one. */
function currencySuffix(t) {
  return t.fees?.[0]?.currency ? ` ${t.fees[0].currency}` : "";
}
