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
