// New trip: a network quote (POST /api/quotes) for a pickup (airport or address), time, drop-off, passengers,
// luggage and extras (child seats, meet & greet…: `extras`); the drop-off placed first (found, or clicked on the
// map: place-picker.js); its options (provider, vehicle, price, distance) and the breakdown of the one it will
// book; booking one (POST /api/quotes/{id}/book) opens the new booking. The API's errors are shown at the fields
// they name.
import { h, count, field, select, showError, statusLine } from "./dom.js";
import * as api from "./api.js";
import { bookingSummary, breakdownList } from "./breakdown.js";
import { recordText } from "./offers.js";
import { bound } from "./field-errors.js";
import { dropOffPicker, dropOffSentence, placedDropOff } from "./place-picker.js";

/** Where each API error goes: the control whose field name is the longest prefix of the error's; else `rest`. */
function showFieldErrors(form, rest, error) {
  for (const el of form.querySelectorAll("[data-field]")) {
    el.removeAttribute("aria-invalid");
    el.closest(".field")?.querySelector(".field-error")?.remove();
  }
  if (!error) return rest.replaceChildren();
  const controls = [...form.querySelectorAll("[data-field]")].filter((el) => !el.closest("[hidden]"));
  const unplaced = [];
  for (const e of error?.errors ?? []) {
    const name = String(e.field ?? "");
    const target = controls
      .filter((el) => name === el.dataset.field || name.startsWith(`${el.dataset.field}.`) || el.dataset.field.startsWith(`${name}.`))
      .sort((a, b) => Math.abs(a.dataset.field.length - name.length) - Math.abs(b.dataset.field.length - name.length))[0];
    if (!target) {
      unplaced.push(e);
      continue;
    }
    target.setAttribute("aria-invalid", "true");
    const box = target.closest(".field");
    const msg = box?.querySelector(".field-error") ?? h("small", { class: "field-error", role: "alert" });
    msg.textContent = msg.textContent ? `${msg.textContent}; ${e.message}` : `${e.field}: ${e.message}`;
    box?.append(msg);
  }
  if (!error.errors?.length || unplaced.length) showError(rest, { message: error.message ?? String(error), errors: unplaced });
  else rest.replaceChildren();
  form.querySelector("[aria-invalid]")?.focus();
}

/** "2027-01-15T08:00" from a datetime-local input, with seconds as trips send them. */
const localTime = (v) => (v.length === 16 ? `${v}:00` : v);

/** Tomorrow at 09:00 (browser's calendar), as a datetime-local value: a pickup time the form starts with. */
function tomorrowNine() {
  const d = new Date(Date.now() + 86_400_000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T09:00`;
}

function place(kind, iata, address, city, country, state = "") {
  if (kind === "airport") return { locationType: "airport", address: iata.trim().toUpperCase() };
  const where = { locationType: "address", address: address.trim() };
  if (city.trim()) where.city = city.trim();
  if (state.trim()) where.state = state.trim();
  if (country.trim()) where.country = country.trim().toUpperCase();
  return where;
}

/** One end of the trip: airport (IATA) or address with city and country (and `extra` below them); the other inputs hide. */
function placeFields(prefix, label, apiField, kindValue, extra = null) {
  const kind = select(
    `${prefix}Kind`,
    [
      ["airport", "Airport"],
      ["address", "Address"],
    ],
    kindValue,
  );
  const iata = bound(apiField, h("input", { name: `${prefix}Iata`, maxlength: 3, size: 5, autocomplete: "off", placeholder: "JFK" }));
  const address = bound(`${apiField}.address`, h("input", { name: `${prefix}Address`, placeholder: "200 Park Ave" }));
  const city = bound(`${apiField}.city`, h("input", { name: `${prefix}City`, placeholder: "New York" }));
  const state = bound(`${apiField}.state`, h("input", { name: `${prefix}State`, maxlength: 60, size: 8, placeholder: "NY" }));
  const country = bound(`${apiField}.country`, h("input", { name: `${prefix}Country`, maxlength: 2, size: 4, placeholder: "US" }));
  const airportBox = h("div", { class: "grid" }, field(`${label} airport (IATA code)`, iata));
  const addressBox = h(
    "div",
    { class: "grid" },
    field(`${label} address`, address),
    field(`${label} city`, city),
    field(`${label} state`, state, "Code or name; tells same-named cities apart"),
    field(`${label} country (2 letters)`, country),
  );
  const addressPart = h("div", {}, addressBox, extra);
  const sync = () => {
    airportBox.hidden = kind.value !== "airport";
    addressPart.hidden = kind.value === "airport";
  };
  kind.addEventListener("change", sync);
  sync();
  const typed = [address, city, state, country];
  return {
    box: h("fieldset", {}, h("legend", {}, label), h("div", { class: "grid" }, field(`${label} kind`, kind)), airportBox, addressPart),
    value: () => place(kind.value, iata.value, address.value, city.value, country.value, state.value),
    filled: () => (kind.value === "airport" ? iata.value.trim() !== "" : address.value.trim() !== "" || city.value.trim() !== ""),
    /** The address fields as one line, as a place search reads them. */
    text: () => typed.map((el) => el.value.trim()).filter((v) => v !== "").join(", "),
    /** Calls `fn` whenever an address field is edited. */
    onEdit: (fn) => typed.forEach((el) => el.addEventListener("input", fn)),
  };
}

/** Extras a trip may ask (docs/rates.md#extras): code, label, the most one trip asks (1: a checkbox). */
const EXTRAS = [
  ["CHILD_SEAT", "Child seats", 10],
  ["BOOSTER_SEAT", "Booster seats", 10],
  ["MEET_AND_GREET", "Meet & greet with name sign", 1],
  ["EXTRA_WAIT_15", "Extra waiting (15-minute blocks)", 48],
];

/** The Extras fieldset; `value()` is the quote's `extras` (none asked: empty), each control bound to its entry. */
function extrasFields() {
  const controls = EXTRAS.map(([code, label, max]) => {
    const props = max === 1 ? { type: "checkbox", name: `extra-${code}` } : { type: "number", name: `extra-${code}`, min: 0, max, value: "0" };
    return { code, label, el: bound("extras", h("input", props)) };
  });
  const hint = "Only operators whose rate card offers an extra are quoted; each adds its list price to the option.";
  return {
    box: h(
      "fieldset",
      {},
      h("legend", {}, "Extras"),
      h("div", { class: "grid" }, controls.map((c) => field(c.label, c.el))),
      h("small", { class: "muted" }, hint),
    ),
    value() {
      const asked = [];
      for (const { code, el } of controls) {
        const quantity = el.type === "checkbox" ? Number(el.checked) : Number(el.value || 0);
        // An error naming extras[i] goes to the control that asked it.
        el.dataset.field = quantity > 0 ? `extras[${asked.length}]` : "extras";
        if (quantity > 0) asked.push({ code, quantity });
      }
      return asked;
    },
  };
}

export async function newTripPage(main) {
  const pickup = placeFields("pickup", "Pickup", "locations.pickup", "airport");
  let dropOff;
  const picker = dropOffPicker({ text: () => dropOff.text() });
  dropOff = placeFields("dropOff", "Drop-off", "locations.dropOff", "address", picker.box);
  // An edited address is another place: it is found again.
  dropOff.onEdit(() => picker.clear());
  const time = bound("locations.pickup.time", h("input", { type: "datetime-local", name: "pickupTime", required: true, value: tomorrowNine() }));
  const passengers = bound("passengerCount", h("input", { type: "number", name: "passengerCount", min: 1, max: 99, value: "2", required: true }));
  const luggage = bound("luggageCount", h("input", { type: "number", name: "luggageCount", min: 0, max: 99, value: "2" }));
  const sort = bound(
    "sort",
    select(
      "sort",
      [
        ["price", "Price (cheapest first)"],
        ["reliability", "Reliability (accepted %, then on time %)"],
      ],
      "price",
    ),
  );
  const extras = extrasFields();
  const problem = h("div");
  const status = statusLine();
  const options = h("section", { "aria-labelledby": "options-h", hidden: true });
  const ask = h("button", { type: "submit", class: "primary" }, "Get prices");

  const quoteForm = h(
    "form",
    {
      "aria-label": "New trip",
      onSubmit: async (e) => {
        e.preventDefault();
        const body = { passengerCount: passengers.value, locations: { pickup: { ...pickup.value(), time: localTime(time.value) } } };
        if (luggage.value !== "") body.luggageCount = luggage.value;
        if (sort.value !== "price") body.sort = sort.value;
        const asked = extras.value();
        if (asked.length) body.extras = asked;
        ask.disabled = true;
        options.hidden = true;
        try {
          // The drop-off is placed before the trip is priced (docs/places.md#drop-offs-and-stops).
          if (dropOff.filled()) body.locations.dropOff = await placed(dropOff.value());
          status.textContent = "Asking every operator that serves the pickup…";
          const quote = (await api.core("POST", "/api/quotes", body)).data;
          status.textContent = "";
          showFieldErrors(quoteForm, problem, null);
          showOptions(quote);
        } catch (error) {
          status.textContent = "";
          showFieldErrors(quoteForm, problem, error);
        } finally {
          ask.disabled = false;
        }
      },
    },
    pickup.box,
    h(
      "div",
      { class: "grid" },
      field("Pickup time", time, "The pickup place's local time"),
      field("Passengers", passengers),
      field("Luggage", luggage, "Pieces; empty if unknown"),
      field("Sort options by", sort),
    ),
    dropOff.box,
    extras.box,
    problem,
    h("div", { class: "toolbar" }, ask),
  );

  /** The drop-off as the quote is asked with it: an address placed by the picker first (found, or clicked). */
  async function placed(where) {
    if (where.locationType !== "address") return where;
    status.textContent = "Placing the drop-off…";
    const p = await picker.ensure();
    if (!p)
      throw {
        message: "The drop-off could not be placed",
        errors: [{ field: "locations.dropOff", message: "was not found: check the address, add its city, or click it on the map" }],
      };
    return placedDropOff(where, p);
  }

  function showOptions(quote) {
    options.hidden = false;
    const warnings = (quote.warnings ?? []).map((w) => h("li", {}, w.message ?? w.code));
    const lacking = (quote.warnings ?? []).some((w) => w.code === "EXTRA_NOT_OFFERED");
    if (!quote.options.length) {
      options.replaceChildren(
        h("h2", { id: "options-h" }, "No prices"),
        h("ul", { class: "muted" }, warnings),
        h(
          "p",
          { class: "empty" },
          lacking
            ? "No operator that serves this pickup offers the extras asked (see above): ask fewer, or none."
            : "No operator has a vehicle near this pickup that seats the party. Try an airport or a city the operators serve, or fewer passengers.",
        ),
      );
      return;
    }
    const first = bound("passengers[0].firstName", h("input", { name: "firstName", required: true, autocomplete: "given-name" }));
    const last = bound("passengers[0].lastName", h("input", { name: "lastName", required: true, autocomplete: "family-name" }));
    const phone = bound("passengers[0].phoneNumber", h("input", { name: "phone", type: "tel", autocomplete: "tel" }));
    const resNo = bound(
      "requesterResNo",
      h("input", { name: "requesterResNo", required: true, maxlength: 100, value: `WEB-${Date.now().toString(36).toUpperCase()}` }),
    );
    const maxFee = bound(
      "fallback.maxFee",
      h("input", { name: "fallbackMaxFee", inputmode: "decimal", maxlength: 16, size: 8, autocomplete: "off", placeholder: "150.00" }),
    );
    const sameClass = bound("fallback.sameClassOrBetter", h("input", { type: "checkbox", name: "fallbackSameClass" }));
    const bookProblem = h("div");
    const bookForm = h(
      "form",
      { "aria-label": "Book an option", onSubmit: (e) => e.preventDefault() },
      h(
        "fieldset",
        {},
        h("legend", {}, "Passenger and your reference"),
        h(
          "div",
          { class: "grid" },
          field("Passenger first name", first),
          field("Passenger last name", last),
          field("Passenger phone", phone),
          field("Your reservation number", resNo, "Booking again with it answers the same booking"),
          field(
            "Fallback: highest fee",
            maxFee,
            "Optional. If the operator declines, does not accept in time or gives the trip back, the next operator up to this fee " +
              "gets it (never later than 30 min before the pickup)",
          ),
          field("Fallback: same class or better", sameClass, "Never move the trip to a smaller vehicle class than the one you book"),
        ),
      ),
      bookProblem,
    );
    const book = async (option, button) => {
      if (!bookForm.reportValidity()) return;
      const passenger = { firstName: first.value.trim(), lastName: last.value.trim() };
      if (phone.value.trim()) passenger.phoneNumber = phone.value.trim();
      button.disabled = true;
      status.textContent = `Booking ${option.name} with ${option.provider.name}…`;
      try {
        const booked = await api.core("POST", `/api/quotes/${encodeURIComponent(quote.quoteId)}/book`, {
          quoteOptionId: option.quoteOptionId,
          requesterResNo: resNo.value.trim(),
          passengers: [passenger],
          ...(maxFee.value.trim() ? { fallback: { maxFee: maxFee.value.trim(), ...(sameClass.checked ? { sameClassOrBetter: true } : {}) } } : {}),
        });
        location.hash = `#/bookings/${booked.transactionId}`;
      } catch (error) {
        status.textContent = "";
        showFieldErrors(bookForm, bookProblem, error);
      } finally {
        button.disabled = false;
      }
    };
    // The option it will book, with its breakdown: the first until another is chosen.
    const willBook = h("div");
    const bookChosen = h("button", { type: "button", class: "primary" }, "Book this option");
    let chosen = quote.options[0];
    bookChosen.addEventListener("click", () => book(chosen, bookChosen));
    const approximate = (quote.warnings ?? []).some((w) => w.code === "DROPOFF_APPROXIMATE");
    const showChosen = () =>
      willBook.replaceChildren(
        bookingSummary(chosen, { dropOff: dropOffSentence(picker.placed(), approximate), actions: h("div", { class: "toolbar" }, bookChosen) }),
      );
    showChosen();
    // Options in several currencies (each shown in its own) are not "in" the quote's one currency.
    const oneCurrency = new Set(quote.options.map((o) => o.currency)).size <= 1;
    options.replaceChildren(
      h("h2", { id: "options-h" }, `${count(quote.options.length, "option")}${oneCurrency ? ` in ${quote.currency}` : ""}`),
      h("p", { class: "muted" }, `Prices hold until ${new Date(quote.validUntil).toLocaleString()}; nothing is sent to an operator until you book.`),
      warnings.length ? h("ul", { class: "muted" }, warnings) : null,
      bookForm,
      willBook,
      h(
        "div",
        { class: "tablebox" },
        h(
          "table",
          { "aria-label": "Quote options" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Operator", "Record", "Vehicle", "Seats", "Luggage", "Price", "Distance to pickup", ""].map((c) => h("th", { scope: "col" }, c)),
            ),
          ),
          h(
            "tbody",
            {},
            quote.options.map((o) => {
              const button = h(
                "button",
                { type: "button", class: "primary", "aria-label": `Book ${o.name} with ${o.provider.name} for ${o.fee} ${o.currency}` },
                "Book",
              );
              button.addEventListener("click", () => book(o, button));
              const choose = h("input", {
                type: "radio",
                name: "chosenOption",
                checked: o === chosen,
                "aria-label": `Choose ${o.name} with ${o.provider.name}`,
              });
              choose.addEventListener("change", () => ((chosen = o), showChosen()));
              return h(
                "tr",
                {},
                h("td", {}, o.provider.name, h("div", { class: "muted" }, o.provider.netid)),
                // The provider's record over 90 days (GET /api/providers/{netid}/record); "new provider" under 10 bookings.
                h("td", { class: "record", "aria-label": `Record of ${o.provider.name}` }, recordText(o.provider.record)),
                h("td", {}, o.name, h("div", { class: "muted" }, o.vehType)),
                h("td", { class: "num" }, o.passengerCount),
                h("td", { class: "num" }, o.luggageCount ?? "—"),
                h(
                  "td",
                  { class: "num" },
                  h("strong", {}, `${o.fee} ${o.currency}`),
                  // Another currency converted with the exchange's FX table (the provider's price above is the one booked).
                  o.converted && o.converted.currency !== o.currency
                    ? h("div", { class: "muted" }, `≈ ${o.converted.fee} ${o.converted.currency}`)
                    : null,
                  breakdownList(o),
                ),
                h("td", { class: "num" }, `${o.nearestKm} km`),
                h("td", {}, h("label", { class: "choose" }, choose, " Choose"), " ", button),
              );
            }),
          ),
        ),
      ),
    );
    first.focus();
  }

  main.replaceChildren(
    h("h1", {}, "New trip"),
    h("p", { class: "muted" }, "Prices from every operator that serves the pickup and takes trips from you; book one and it is sent to that operator."),
    quoteForm,
    status,
    options,
  );
}
