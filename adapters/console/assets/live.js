// The tab's one event stream (GET /api/events): booking events and chauffeur positions as they happen, shared by
// every page. One EventSource per tab, closed on sign-out and when the tab goes away (a company may hold 10 streams).
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
];
const POSITION = "chauffeur.position";

let source = null;
let lastId = "";
let retryTimer = 0;
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
  if (source || !api.signedIn()) return;
  const params = new URLSearchParams({ access_token: api.accessToken() });
  // A stream opened anew (after a refusal, or a new token) resumes where the last one stopped.
  if (lastId) params.set("lastEventId", lastId);
  const es = new EventSource(`/api/events?${params}`);
  source = es;
  for (const type of [...BOOKING_EVENTS, POSITION, "reset"]) es.addEventListener(type, (e) => onEvent(type, e));
  es.addEventListener("error", () => {
    // CLOSED: the server refused (401 expired token, 429 too many streams); EventSource gives up, so try again later.
    if (es.readyState !== EventSource.CLOSED || source !== es) return;
    source = null;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(start, 5000);
  });
}

/** Closes the stream (sign-out, tab closed); what was new is forgotten. */
export function stop() {
  clearTimeout(retryTimer);
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
