// Terms, acceptance deadlines and the cascade in the console (docs/terms.md): a booking's terms, the time left until
// its acceptBy (counting down), the offers history and why the exchange ended a booking, the cancellation fee a
// requester's cancel would cost now, and a provider's record beside a quote option.
import { count, h } from "./dom.js";
import * as api from "./api.js";
import { zonedTime } from "./format.js";

/** Statuses in which the provider has not accepted yet (the offer lapses at acceptBy). */
export const AWAITING = ["BOOKING_REQUEST", "PENDING"];

/** Why an offer or a booking ended, in words. */
const REASONS = {
  PROVIDER_REJECTED: "the provider declined",
  ACCEPT_TIMEOUT: "not accepted in time",
  DELIVERY_FAILED: "the provider could not be reached",
  NO_PROVIDER_ACCEPTED: "no provider accepted it",
};
export const reasonText = (code) => (REASONS[code] ? `${REASONS[code]} (${code})` : code);

/** "2 d 3 h left", "1 h 05 min 09 s left", "42 s left" until the ISO instant `iso`; "time is up" once it passed. */
export function timeLeft(iso, now = Date.now()) {
  const s = Math.floor((Date.parse(iso) - now) / 1000);
  if (!Number.isFinite(s)) return "";
  if (s <= 0) return "time is up";
  const d = Math.floor(s / 86_400),
    hh = Math.floor((s % 86_400) / 3600),
    mm = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${hh} h left`;
  if (hh) return `${hh} h ${String(mm).padStart(2, "0")} min ${String(s % 60).padStart(2, "0")} s left`;
  if (mm) return `${mm} min ${String(s % 60).padStart(2, "0")} s left`;
  return `${s} s left`;
}

/** A <span> showing the time left until `iso`, redrawn every second while it is on the page. */
export function countdown(iso, props = {}) {
  const el = h("span", { class: "countdown", ...props }, timeLeft(iso));
  let shown = false;
  const timer = setInterval(() => {
    if (el.isConnected) shown = true;
    else if (shown) return clearInterval(timer);
    el.textContent = timeLeft(iso);
  }, 1000);
  return el;
}

/** An ISO instant in the pickup's zone (UTC on hover); as sent when it does not parse. */
function instant(iso, zone) {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? zonedTime(Math.floor(ms / 1000), zone) : h("time", {}, iso ?? "—");
}

const row = (label, ...value) => h("div", {}, h("dt", {}, label), h("dd", {}, ...value));

/** The booking's terms, its acceptance deadline and why the exchange ended it: a list of facts (null when none). */
export function termsFacts(b, zone) {
  const t = b.terms;
  const rows = [];
  if (b.reason) rows.push(row("Ended by the exchange", h("span", { class: "booking-reason" }, reasonText(b.reason))));
  if (b.acceptBy && AWAITING.includes(b.lastStatus))
    rows.push(row("Provider must accept by", instant(b.acceptBy, zone), " · ", countdown(b.acceptBy, { "aria-label": "Time left to accept" })));
  if (t) {
    rows.push(row("Free cancellation until", t.freeCancellationUntil ? instant(t.freeCancellationUntil, zone) : "not free"));
    rows.push(
      row(
        "Cancellation fee",
        h(
          "ul",
          { class: "tiers", "aria-label": "Cancellation tiers" },
          (t.cancellation ?? []).map((c) => h("li", {}, `${c.percent}% until `, instant(c.until, zone))),
        ),
      ),
    );
    rows.push(row("Free waiting", `${t.freeWaitingMinutes} min`));
  }
  if (b.fallback) rows.push(row("Fallback", `up to ${b.fallback.maxFee} if the provider does not accept`));
  if (!rows.length) return null;
  return h("section", { "aria-labelledby": "terms-h" }, h("h2", { id: "terms-h" }, "Terms"), h("dl", { class: "facts terms" }, rows));
}

/** The offers history: every provider offered the booking, the current one last (null when there is none). */
export function offersHistory(b, zone) {
  const offers = b.offers ?? [];
  if (!offers.length) return null;
  return h(
    "section",
    { "aria-labelledby": "offers-h" },
    h("h2", { id: "offers-h" }, "Offers"),
    h(
      "table",
      { "aria-label": "Offers" },
      h("thead", {}, h("tr", {}, ["Provider", "Fee", "Status", "Reason", "Offered at"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        offers.map((o) =>
          h(
            "tr",
            {},
            h("td", {}, o.provider),
            h("td", { class: "num" }, o.fee != null ? `${o.fee} ${o.currency ?? ""}`.trim() : "—"),
            h("td", {}, h("span", { class: `badge s-${o.status}` }, o.status)),
            h("td", {}, o.reason ? reasonText(o.reason) : ""),
            h("td", {}, instant(o.at, zone)),
          ),
        ),
      ),
    ),
  );
}

/** What cancelling now would cost the requester, as a sentence for the cancel dialog (from cancel-fee). */
export async function cancelFeeText(transactionId) {
  try {
    const f = (await api.core("GET", `/api/reservation/${encodeURIComponent(transactionId)}/cancel-fee`)).data;
    if (!f.percent || Number(f.fee) === 0) return `Cancelling now is free${f.freeUntil ? ` (free until ${new Date(f.freeUntil).toLocaleString()})` : ""}.`;
    return `Cancelling now costs ${f.fee} ${f.currency} (${f.percent}% of the fare).`;
  } catch {
    return "The cancellation fee could not be read.";
  }
}

/** A provider's record beside a network quote option: accepted %, on time %, bookings; "new provider" under 10. */
export function recordText(record) {
  if (!record || record.acceptedPct == null) return `new provider${record?.bookings ? ` (${count(record.bookings, "booking")})` : ""}`;
  const on = record.onTimePct == null ? "on time —" : `${record.onTimePct}% on time`;
  return `${record.acceptedPct}% accepted · ${on} · ${count(record.bookings, "booking")}`;
}
