// Terms, acceptance deadlines and the cascade in the console (docs/terms.md): a booking's terms, the time left until
// its acceptBy (counting down), the offers history and why the exchange ended a booking, the cancellation fee a
// requester's cancel would cost now and why, the booking's price as its fee lines (the quoted ones fixed, the lines
// the provider added after them, the total their sum), and a provider's record beside a quote option.
import { count, h } from "./dom.js";
import * as api from "./api.js";
import { zonedTime } from "./format.js";
import { breakdownList } from "./breakdown.js";

/** Statuses in which the provider has not accepted yet (the offer lapses at acceptBy). */
export const AWAITING = ["BOOKING_REQUEST", "PENDING"];

/** Why an offer or a booking ended, in words. */
const REASONS = {
  PROVIDER_REJECTED: "the provider declined",
  ACCEPT_TIMEOUT: "not accepted in time",
  DELIVERY_FAILED: "the provider could not be reached",
  PROVIDER_GAVE_BACK: "the provider gave it back after accepting",
  NO_PROVIDER_ACCEPTED: "no provider accepted it",
};
export const reasonText = (code) => (REASONS[code] ? `${REASONS[code]} (${code})` : code);

/** Why a provider's own offer ended, in its own words (its lost offers, its read-only booking page). */
const OWN_REASONS = {
  PROVIDER_REJECTED: "you declined",
  ACCEPT_TIMEOUT: "you did not accept in time",
  DELIVERY_FAILED: "you could not be reached",
  PROVIDER_GAVE_BACK: "you gave it back after accepting",
};
export const ownReasonText = (code) => (OWN_REASONS[code] ? `${OWN_REASONS[code]} (${code})` : code);

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

/**
 * The booking's terms, what cancelling costs now (`cancelNow`: an element the caller fills from cancel-fee), its
 * acceptance deadline and why the exchange ended it: a list of facts (null when none).
 */
export function termsFacts(b, zone, cancelNow) {
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
    // docs/terms.md#the-assignment-deadline: both parties are warned when no chauffeur is assigned by then.
    if (t.assignBy) rows.push(row("Chauffeur assigned by", instant(t.assignBy, zone)));
  }
  if (cancelNow) rows.push(row("Cancelling now", cancelNow));
  // The requester's alone: a provider's read never carries it (docs/terms.md#who-sees-what).
  if (b.fallback) {
    const sameClass = b.fallback.sameClassOrBetter ? ", never a smaller vehicle class" : "";
    rows.push(row("Fallback", `up to ${b.fallback.maxFee} if the provider does not accept or gives the trip back${sameClass}`));
  }
  if (!rows.length) return null;
  return h("section", { "aria-labelledby": "terms-h" }, h("h2", { id: "terms-h" }, "Terms"), h("dl", { class: "facts terms" }, rows));
}

/** An offer's terms in a few words: until when cancelling is free, and the fee after ("—" without terms). */
function offerTerms(t, zone) {
  if (!t) return "—";
  const last = t.cancellation?.at(-1);
  return [t.freeCancellationUntil ? ["free until ", instant(t.freeCancellationUntil, zone)] : "not free", last ? ` · then up to ${last.percent}%` : ""].flat();
}

/**
 * The offers history: every provider offered the booking, the current one last, each with the terms it offered (null
 * when there is none). A provider's read holds its own offer only (docs/terms.md#who-sees-what).
 */
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
      h("thead", {}, h("tr", {}, ["Provider", "Fee", "Terms", "Status", "Reason", "Offered at"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        offers.map((o) =>
          h(
            "tr",
            {},
            h("td", {}, o.provider),
            h("td", { class: "num" }, o.fee != null ? `${o.fee} ${o.currency ?? ""}`.trim() : "—"),
            h("td", { class: "offer-terms" }, offerTerms(o.terms, zone)),
            h("td", {}, h("span", { class: `badge s-${o.status}` }, o.status)),
            h("td", {}, o.reason ? reasonText(o.reason) : ""),
            h("td", {}, instant(o.at, zone)),
          ),
        ),
      ),
    ),
  );
}

/** An amount with its currency, when it names one ("50.00 USD", "30000"); never the word null. */
const money = (amount, currency) => (amount == null || amount === "" ? "—" : `${amount}${currency ? ` ${currency}` : ""}`);

/** Why cancelling is free, in words (cancel-fee's `reason`). */
const FREE_BECAUSE = {
  NOT_ACCEPTED: "the provider has not accepted the booking yet",
  QUOTE: "it is a quote",
  NO_TERMS: "the booking was made before terms existed",
  NO_PRICE: "the booking has no price yet",
};

/** What cancel-fee answers, in words: free and why, what a late cancel costs of what, or what the cancel charged. */
export function cancelFeeWords(f, zone) {
  const charged = Number(f.fee) > 0;
  if (f.reason === "CANCELLED") return charged ? `${money(f.fee, f.currency)} was charged (${f.percent}% of the fare)` : "nothing was charged";
  if (f.reason === "NOT_CANCELLABLE") return "the trip can no longer be cancelled";
  if (!charged) {
    if (FREE_BECAUSE[f.reason]) return `free: ${FREE_BECAUSE[f.reason]}`;
    return f.freeUntil ? ["free until ", instant(f.freeUntil, zone)] : "free";
  }
  return `${money(f.fee, f.currency)} (${f.percent}% of the quoted fare ${money(f.fare, f.currency)}; lines added later are not counted)`;
}

/** What cancelling costs now, read from cancel-fee into a <span> (the booking page's "Cancelling now"). */
export function cancelFeeNow(transactionId, zone) {
  const el = h("span", { class: "cancel-now" }, "…");
  api
    .core("GET", `/api/reservation/${encodeURIComponent(transactionId)}/cancel-fee`)
    .then((r) => {
      el.dataset.reason = r.data.reason;
      el.replaceChildren(...[cancelFeeWords(r.data, zone)].flat());
    })
    .catch(() => el.replaceChildren("could not be read"));
  return el;
}

/** What cancelling now would cost the requester, as a sentence for the cancel dialog (from cancel-fee). */
export async function cancelFeeText(transactionId) {
  try {
    const f = (await api.core("GET", `/api/reservation/${encodeURIComponent(transactionId)}/cancel-fee`)).data;
    if (!f.percent || Number(f.fee) === 0) {
      const why = FREE_BECAUSE[f.reason] ? ` (${FREE_BECAUSE[f.reason]})` : f.freeUntil ? ` (free until ${new Date(f.freeUntil).toLocaleString()})` : "";
      return `Cancelling now is free${why}.`;
    }
    return `Cancelling now costs ${money(f.fee, f.currency)} (${f.percent}% of the fare: the quoted ${money(f.fare, f.currency)}).`;
  } catch {
    return "The cancellation fee could not be read.";
  }
}

/** The line types a provider adds after the booking (tolls, parking, waiting). */
const ADDED = ["CHARGE", "EXPENSE", "EXTRA_SERVICE"];

/** What a fee line is: booked with the trip (a quote's fixed line), added by the provider afterwards, or the cancellation fee. */
function lineKind(f) {
  const type = String(f.type ?? "").toUpperCase();
  if (ADDED.includes(type)) return ["added", "added by the provider"];
  if (type === "CANCELLATION") return ["cancellation", "cancellation fee"];
  return ["booked", "booked"];
}

/** The booking's price: each fee line (a booked option with its breakdown), and the total — their sum. Null without any. */
/**
 * Money after the trip (docs/settlement.md): the fare's state once the trip ended — OPEN (the provider may still add
 * lines) until when, or FINAL since when — and a give-back's cost recovery, or its waiver. Null when neither applies.
 */
export function settlementFacts(t, zone) {
  const fare = t.finalFare;
  const r = t.costRecovery;
  if (!fare && !r) return null;
  const until = fare ? zonedTime(Math.floor(Date.parse(fare.until) / 1000), zone) : null;
  const recovery = !r
    ? null
    : r.waived
      ? `Waived (${r.waived === "FLIGHT_MOVED_PICKUP" ? "a flight moved the pickup by more than 60 minutes" : r.waived}): ${r.owedBy} owes nothing.`
      : `${r.owedBy} owes ${r.owedTo} ${money(r.amount, r.currency)} (${r.percent}% of the quoted fare ${money(r.fare, r.currency)})` +
        " for giving the booking back.";
  return h(
    "dl",
    { class: "facts settlement", "aria-label": "Settlement" },
    fare
      ? h(
          "div",
          {},
          h("dt", {}, "Final fare"),
          h(
            "dd",
            { class: "final-fare" },
            h("span", { class: `badge fare-${fare.state.toLowerCase()}` }, fare.state),
            fare.state === "OPEN" ? " — the provider may add lines (tolls, parking, waiting) until " : " — no more changes since ",
            until,
          ),
        )
      : null,
    recovery ? h("div", {}, h("dt", {}, "Cost recovery"), h("dd", { class: "cost-recovery" }, recovery)) : null,
  );
}

export function priceSection(t) {
  const lines = t.fees ?? [];
  if (!lines.length && t.totalAmount == null) return null;
  const currency = lines.find((f) => f.currency)?.currency;
  return h(
    "section",
    { "aria-labelledby": "price-h" },
    h("h2", { id: "price-h" }, "Price"),
    h(
      "table",
      { "aria-label": "Fee lines", class: "fee-lines" },
      h("thead", {}, h("tr", {}, ["Line", "Kind", "Amount"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        lines.map((f) => {
          const [kind, words] = lineKind(f);
          const label = f.name || f.code || f.type || "Line";
          return h(
            "tr",
            { class: `fee-${kind}` },
            h("td", {}, label, breakdownList({ ...f, name: label })),
            h("td", {}, words),
            h("td", { class: "num" }, money(f.fee ?? f.amount, f.currency ?? currency)),
          );
        }),
      ),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row", colspan: "2" }, "Total"), h("td", { class: "num fee-total" }, money(t.totalAmount, currency)))),
    ),
  );
}

/**
 * A provider's record beside a network quote option (docs/terms.md#provider-record): accepted %, on time %, offers and
 * from how many companies; "new provider" under 10 answered offers.
 */
export function recordText(record) {
  const offers = record?.offers ?? record?.bookings ?? 0;
  const from = record?.requesters ? ` from ${count(record.requesters, "company", "companies")}` : "";
  if (!record || record.acceptedPct == null) return `new provider${offers ? ` (${count(offers, "offer")}${from})` : ""}`;
  const on = record.onTimePct == null ? "on time —" : `${record.onTimePct}% on time`;
  return `${record.acceptedPct}% accepted · ${on} · ${count(offers, "offer")}${from}`;
}

/**
 * Whether the signed-in provider's offer of this booking ended (it declined, let acceptBy pass, gave it back, or the
 * cascade moved it on): its page is then read-only (docs/terms.md#who-sees-what).
 */
export function offerEnded(b, netid) {
  return b.toConextId === netid && (b.offers ?? []).some((o) => o.provider === netid && o.reason);
}
