// The airport trip on the booking page (docs/flights.md): the flight the pickup meets (scheduled, estimated, landed),
// the pickup its flight moved and why, the chauffeur's arrival, flags and ETA, the waiting clock (free minutes left,
// minutes waited, the WAITING charge once the passenger is on board), and the form with which either party reports
// the flight's landing (POST /api/reservation/{id}/flight-status). Every value is shown as text, never as HTML.
import { count, field, h, select, submitForm } from "./dom.js";
import * as api from "./api.js";
import { zonedTime } from "./format.js";

const CAUSES = { FLIGHT_DELAY: "the flight is late", FLIGHT_EARLY: "the flight is early" };
const FLAGS = { ON_LOCATION_BEFORE_ARRIVAL: "ON_LOCATION was sent more than 5 minutes before the chauffeur arrived" };
/** The passenger is on board (or the trip ended after it): the waiting is over and charged. */
const ON_BOARD = new Set(["PASSENGER_ON_BOARD", "STOP", "COMPLETE", "CLOSE"]);
/** A flight moves the pickup until the passenger is on board or the booking ended (docs/flights.md#the-pickup-follows-the-flight). */
const FOLLOWS_FLIGHT = new Set(["BOOKING_REQUEST", "PENDING", "CONFIRMED", "ACKNOWLEDGED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"]);

const row = (label, ...value) => h("div", {}, h("dt", {}, label), h("dd", {}, ...value));
const unix = (iso) => Math.floor(Date.parse(iso) / 1000);
/** An ISO instant in the pickup's zone (UTC on hover); as sent when it does not parse. */
const instant = (iso, zone) => (Number.isFinite(Date.parse(iso)) ? zonedTime(unix(iso), zone) : h("time", {}, String(iso ?? "—")));

/** Decimal amounts added exactly in their smallest unit ("20.00" + "20.00" is "40.00"): no float arithmetic. */
export function sumAmounts(amounts) {
  const digits = Math.max(0, ...amounts.map((a) => (String(a).split(".")[1] ?? "").length));
  const total = amounts.reduce((sum, a) => {
    const [whole, fraction = ""] = String(a).split(".");
    return sum + BigInt(whole + fraction.padEnd(digits, "0"));
  }, 0n);
  const text = total.toString().padStart(digits + 1, "0");
  return digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
}

/** The flight: its number, the scheduled / estimated / landed arrival, the offset, and the last move with its cause. */
function flightFacts(b, zone) {
  const f = b.flight;
  const move = f.lastMove;
  return h(
    "dl",
    { class: "facts flight", "aria-label": "Flight" },
    row("Flight", h("span", { class: "flight-number" }, `${f.airlineCode} ${f.flightNumber}`), " · ", h("span", { class: "flight-state" }, f.state)),
    row("Scheduled arrival", f.scheduledLanding ? instant(f.scheduledLanding, zone) : "unknown"),
    f.estimatedLanding ? row("Estimated arrival", h("span", { class: "flight-estimated" }, instant(f.estimatedLanding, zone))) : null,
    f.landedAt ? row("Landed", h("span", { class: "flight-landed" }, instant(f.landedAt, zone))) : null,
    row("Pickup after landing", f.pickupOffsetMinutes == null ? "unknown until the scheduled arrival is known" : `${f.pickupOffsetMinutes} min`),
    move
      ? row(
          "Pickup moved",
          h(
            "span",
            { class: "pickup-moved", "data-cause": move.cause },
            instant(move.from, zone),
            " → ",
            instant(move.to, zone),
            ` (${move.cause}: ${CAUSES[move.cause] ?? "moved by its flight"})`,
          ),
          h("span", { class: "muted" }, " · booked for ", instant(f.originalPickup, zone)),
        )
      : null,
  );
}

/** When the waiting clock starts: the later of the arrival (its positions) and the pickup (docs/flights.md#waiting-and-no-show). */
const clockStart = (b) => Math.max(b.pickupDate, b.arrivedAt ? unix(b.arrivedAt) : -Infinity);

/** The waiting clock's words at `now` (Unix seconds), before the passenger is on board. */
export function waitingWords(b, now) {
  const start = clockStart(b);
  const free = b.terms.freeWaitingMinutes;
  if (now < start) return `starts at the ${b.arrivedAt && unix(b.arrivedAt) > b.pickupDate ? "arrival" : "pickup"}: ${free} free minutes from then`;
  const waited = Math.floor((now - start) / 60);
  const rate = b.terms.waitingRate;
  if (waited < free) return `${count(waited, "minute")} waited · ${count(free - waited, "free minute")} left`;
  const charged = rate ? `each started ${rate.perMinutes} min beyond them is charged ${rate.amount}` : "no waiting rate: not charged";
  return `${count(waited, "minute")} waited · the ${free} free minutes are over (${charged})`;
}

/** A <span> with the waiting clock, redrawn every second while it is on the page. */
function waitingClock(b) {
  const el = h("span", { class: "waiting-clock", role: "timer" }, waitingWords(b, Math.floor(Date.now() / 1000)));
  let shown = false;
  const timer = setInterval(() => {
    if (el.isConnected) shown = true;
    else if (shown) return clearInterval(timer);
    el.textContent = waitingWords(b, Math.floor(Date.now() / 1000));
  }, 1000);
  return el;
}

/** Waiting once the passenger is on board: the minutes waited and the WAITING lines' sum, with their evidence. */
function waitingCharged(b, zone) {
  const lines = (b.tripPacket.fees ?? []).filter((f) => f.code === "WAITING");
  if (!lines.length) return h("span", { class: "waiting-charge" }, "no waiting charge (within the free minutes, or no waiting rate)");
  const e = lines[0].evidence ?? {};
  const currency = lines[0].currency ? ` ${lines[0].currency}` : "";
  return h(
    "span",
    { class: "waiting-charge" },
    `${count(e.waitedMinutes, "minute")} waited: ${count(lines.length, "WAITING line")} of ${lines[0].fee}${currency}, `,
    `${sumAmounts(lines.map((l) => l.fee))}${currency} in all`,
    h("span", { class: "muted" }, " · from ", instant(e.arrivedAt, zone), " to on board ", instant(e.onBoardAt, zone)),
  );
}

/** Arrival, flags, ETA and waiting: null before any of them means anything (no terms, no chauffeur yet). */
function clockFacts(b, zone) {
  const status = b.lastStatus;
  const rows = [];
  if (b.eta)
    rows.push(row("ETA", h("span", { class: "eta" }, `${count(b.eta.toPickupMinutes, "minute")} to the pickup · there at `, instant(b.eta.at, zone))));
  if (b.arrivedAt || ["ASSIGNED", "EN_ROUTE", "ON_LOCATION"].includes(status))
    rows.push(row("Arrived", h("span", { class: "arrived-at" }, b.arrivedAt ? instant(b.arrivedAt, zone) : "not yet (no position at the pickup)")));
  for (const flag of b.flags ?? []) rows.push(row("Flag", h("span", { class: "booking-flag", "data-flag": flag }, `${flag}: ${FLAGS[flag] ?? ""}`)));
  const t = b.terms;
  if (t && (b.flight || rows.length || ON_BOARD.has(status) || status === "NO_SHOW")) {
    const rate = t.waitingRate;
    rows.push(row("Waiting rate", rate ? `${rate.amount} per started ${rate.perMinutes} min beyond ${t.freeWaitingMinutes} free minutes` : "none"));
    if (ON_BOARD.has(status)) rows.push(row("Waiting", waitingCharged(b, zone)));
    else if (status === "ON_LOCATION" || (b.arrivedAt && FOLLOWS_FLIGHT.has(status))) {
      rows.push(row("Waiting", waitingClock(b)));
      rows.push(row("No-show allowed from", h("span", { class: "no-show-from" }, zonedTime(clockStart(b) + t.freeWaitingMinutes * 60, zone))));
    }
  }
  return rows.length ? h("dl", { class: "facts trip-clock", "aria-label": "Arrival and waiting" }, rows) : null;
}

/** What a flight status answered, in words: where the pickup is now, and any short-notice warning. */
function reported({ data: r }) {
  const said = r.move ? `the pickup moved to ${r.time} (${r.move.cause})` : `the pickup stays at ${r.time}`;
  return [`Flight status reported: ${said}.`, ...(r.warnings ?? []).map((w) => ` ${w.code}: ${w.message}`)].join("");
}

/** The report form: the landing's kind and its time (local at the airport), sent through `act`. */
function reportForm(b, act) {
  const kind = select("kind", [
    ["estimatedArrival", "Estimated arrival"],
    ["actualArrival", "Landed at"],
  ]);
  const at = h("input", { name: "arrival", type: "datetime-local", step: "60", required: true });
  // datetime-local gives minutes; the exchange reads a local time with seconds like the pickup's own.
  const value = () => (at.value.length === 16 ? `${at.value}:00` : at.value);
  const path = `/api/reservation/${encodeURIComponent(b.transactionId)}/flight-status`;
  const send = () => act("Report flight status", () => api.core("POST", path, { [kind.value]: value() }), reported);
  return submitForm(
    { class: "flight-report", "aria-label": "Report flight status" },
    send,
    h(
      "div",
      { class: "grid" },
      field("Flight status", kind),
      field("Arrival (local time at the airport)", at, "The pickup moves to the landing + the minutes after landing it was booked for."),
    ),
    h("button", { type: "submit" }, "Report flight status"),
  );
}

/**
 * The airport trip's section of the booking page (null for a booking with no flight and nothing on its clock); a
 * party of a booking whose pickup still follows its flight gets the report form (`act` runs it and reloads).
 */
export function airportTrip(b, zone, { party, act }) {
  const facts = [b.flight ? flightFacts(b, zone) : null, clockFacts(b, zone)].filter(Boolean);
  if (!facts.length) return null;
  const movable = b.flight && party && b.tripPacket.reservationType !== "QUOTE" && FOLLOWS_FLIGHT.has(b.lastStatus);
  return h(
    "section",
    { "aria-labelledby": "airport-h" },
    h("h2", { id: "airport-h" }, b.flight ? "Flight, arrival and waiting" : "Arrival and waiting"),
    ...facts,
    movable ? reportForm(b, act) : null,
  );
}
