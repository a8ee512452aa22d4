// The tab's one event stream (GET /api/events): booking events and chauffeur positions as they happen, shared by
// every page. One EventSource per tab, closed on sign-out and when the tab goes away (a company may hold 10 streams).
// A stream the server ends (`event: revoked`) is not reopened with the same credential.
import { h } from "./dom.js";
import * as api from "./api.js";

const BOOKING_EVENTS = [
  "booking.created",
  "quote.created",
  "booking.updated",
  "booking.cancelled",
  "booking.status_changed",
  "booking.details_changed",
  "booking.provider_reference",
  "booking.delivery_failed",
  "booking.delivery_retried",
  "booking.delivery_recovered",
  "booking.reassigned",
  // To a provider whose offer ended (docs/terms.md#who-sees-what): its lists drop the request at once.
  "booking.withdrawn",
  // The fare is final (docs/settlement.md#the-final-fare): the booking page shows it.
  "booking.fare_final",
  // No chauffeur by the assignment deadline (docs/terms.md#the-assignment-deadline): the booking page shows it.
  "booking.unassigned_warning",
];
const POSITION = "chauffeur.position";

let source = null;
let lastId = "";
let retryTimer = 0;
/** Set when a newer stream of the company took this one's place (STREAM_LIMIT): no stream until asked for. */
let heldBack = false;
const watchers = new Set();
/** Incoming trips (this company the provider) that arrived over the stream: highlighted in the list until opened. */
const arrived = new Set();
/** Those the list has not shown yet (the nav badge counts them). */
const unseen = new Set();
const badge = h("span", { class: "badge newtrips", hidden: true, "aria-live": "polite" });

/** The Bookings nav's badge: how many incoming trips arrived since the list was last shown. */
export function newTripsBadge() {
  return badge;
}

function showBadge() {
  const n = unseen.size;
  badge.hidden = n === 0;
  badge.textContent = n ? `${n} new` : "";
  badge.setAttribute("aria-label", n ? `${n} new incoming ${n === 1 ? "trip" : "trips"}` : "");
}

/** The list was shown: the badge clears; the rows stay highlighted until each booking is opened. */
export function markListSeen() {
  unseen.clear();
  showBadge();
}

/** Whether a booking arrived over the stream and was not opened yet. */
export const isNew = (transactionId) => arrived.has(transactionId);

/** The booking was opened: no longer new. */
export function markOpened(transactionId) {
  arrived.delete(transactionId);
  if (unseen.delete(transactionId)) showBadge();
}

/**
 * Calls `fn(type, body)` for each event while `where` (a page's element) is on screen: type is a booking event's,
 * "chauffeur.position", or "reset" (the stream could not resume: reload what is shown).
 */
export function follow(where, fn) {
  watchers.add({ where, fn });
  start();
}

function dispatch(type, body) {
  for (const w of [...watchers]) {
    if (!w.where.isConnected) watchers.delete(w);
    else {
      try {
        w.fn(type, body);
      } catch (error) {
        console.error(error);
      }
    }
  }
}

function onEvent(type, e) {
  if (e.lastEventId) lastId = e.lastEventId;
  let body;
  try {
    body = JSON.parse(e.data);
  } catch {
    return;
  }
  const booking = body?.data;
  if ((type === "booking.created" || type === "quote.created") && booking?.toConextId === api.me().netid && !arrived.has(booking.transactionId)) {
    arrived.add(booking.transactionId);
    unseen.add(booking.transactionId);
    showBadge();
  }
  dispatch(type, body);
}

/** Opens the stream when signed in and none is open. EventSource resumes by itself with Last-Event-ID. */
export function start() {
  if (source || heldBack || !api.signedIn()) return;
  const params = new URLSearchParams({ access_token: api.accessToken() });
  // A stream opened anew (after a refusal, or a new token) resumes where the last one stopped.
  if (lastId) params.set("lastEventId", lastId);
  const es = new EventSource(`/api/events?${params}`);
  source = es;
  for (const type of [...BOOKING_EVENTS, POSITION, "reset"]) es.addEventListener(type, (e) => onEvent(type, e));
  es.addEventListener("revoked", (e) => onRevoked(es, e));
  es.addEventListener("error", () => {
    // CLOSED: the server refused (401 expired token, 429 too many streams); EventSource gives up. A core call tells
    // which: a 401 ends the session (the app asks to sign in again); else try again later.
    if (es.readyState !== EventSource.CLOSED || source !== es) return;
    source = null;
    clearTimeout(retryTimer);
    api
      .core("GET", "/api/company")
      .then(() => true, (error) => error.status !== 401)
      .then((again) => again && api.signedIn() && !source && (retryTimer = setTimeout(start, 5000)));
  });
}

const paused = h(
  "div",
  { class: "card live-paused", role: "status", hidden: true },
  "Live updates stopped: your company opened more event streams than it may hold, and this one was the oldest. ",
  h("button", { type: "button", onClick: () => ((paused.hidden = true), (heldBack = false), start()) }, "Reconnect"),
);

/**
 * The stream's last event (`event: revoked`), then the server closes it; EventSource would reconnect with the same
 * credential, so it is closed here first. TOKEN_REVOKED: the token no longer holds (released, expired, user removed):
 * back to the sign-in screen. STREAM_LIMIT: a newer stream of the company took its place; no reconnect by itself
 * (that would end another in turn), a button does.
 */
function onRevoked(es, e) {
  es.close();
  if (source === es) source = null;
  clearTimeout(retryTimer);
  let reason = "";
  try {
    reason = JSON.parse(e.data)?.reason ?? "";
  } catch {}
  if (reason === "STREAM_LIMIT") {
    heldBack = true;
    if (!paused.isConnected) document.body.prepend(paused);
    paused.hidden = false;
    return;
  }
  stop();
  api.sessionEnded("The server ended your session (signed out elsewhere, expired, or your user was removed): sign in again.");
}

/** Closes the stream (sign-out, tab closed); what was new is forgotten. */
export function stop() {
  clearTimeout(retryTimer);
  paused.hidden = true;
  heldBack = false;
  source?.close();
  source = null;
  lastId = "";
  watchers.clear();
  arrived.clear();
  unseen.clear();
  showBadge();
}

// Back from the back-forward cache: open it again (pagehide closed it).
window.addEventListener("pagehide", () => {
  clearTimeout(retryTimer);
  source?.close();
  source = null;
});
window.addEventListener("pageshow", (e) => e.persisted && start());
