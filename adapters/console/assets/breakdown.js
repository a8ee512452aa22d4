// How a quote option's fee is made up (its `breakdown` lines: BASE, SURCHARGE, EXTRA, MINIMUM; they sum to the fee).
import { h } from "./dom.js";

/** The option's breakdown as a small list under its price; nothing when the option has none. */
export function breakdownList(option) {
  const lines = option.breakdown ?? [];
  if (!lines.length) return null;
  return h(
    "ul",
    { class: "breakdown", "aria-label": `Price breakdown of ${option.name}` },
    lines.map((l) => h("li", { class: `bd-${String(l.kind).toLowerCase()}` }, h("span", {}, l.name), " ", h("span", { class: "num" }, l.amount))),
  );
}

/**
 * What booking `option` makes, before it is booked: the vehicle and its operator, its breakdown line by line, the
 * total, where the drop-off is (`dropOff`: a sentence, or null) and `actions` (the button that books it).
 */
export function bookingSummary(option, { dropOff = null, actions = null } = {}) {
  return h(
    "section",
    { class: "will-book", "aria-label": "The booking you will make" },
    h("h3", {}, "You will book"),
    h("p", {}, h("strong", {}, option.name), ` (${option.vehType}) with ${option.provider?.name ?? option.provider?.netid ?? "the operator"}`),
    breakdownList(option),
    h("p", { class: "total" }, "Total ", h("strong", {}, `${option.fee} ${option.currency}`)),
    dropOff ? h("p", { class: "muted" }, dropOff) : null,
    actions,
  );
}
