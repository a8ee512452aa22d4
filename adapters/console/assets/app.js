// The console's shell: sign-in, navigation and the hash router (#/fleet, #/bookings, #/bookings/<id>, …).
import { h, field, showError, submitForm } from "./dom.js";
import * as api from "./api.js";
import { fleetPage } from "./fleet.js";
import { bookingsPage } from "./bookings.js";
import { bookingPage } from "./booking.js";
import { integrationPage, deliveriesPage } from "./settings.js";
import { partnersPage } from "./partners.js";
import { newTripPage } from "./newtrip.js";
import { ratesPage } from "./rates.js";
import { availabilityPage } from "./availability.js";
import { statementsPage } from "./statements.js";
import * as live from "./live.js";

const PAGES = [
  ["fleet", "Fleet", fleetPage],
  ["bookings", "Bookings", bookingsPage],
  ["newtrip", "New trip", newTripPage],
  ["rates", "Rates", ratesPage],
  ["availability", "Availability", availabilityPage],
  ["integration", "Integration", integrationPage],
  ["deliveries", "Deliveries", deliveriesPage],
  ["partners", "Partners", partnersPage],
  ["statements", "Statements", statementsPage],
];

/** The pages the signed-in company has: a CO (a requester only, no vehicles to run) has no Fleet, Rates or Availability. */
const OPERATOR_PAGES = new Set(["fleet", "rates", "availability"]);
const pages = () => PAGES.filter(([key]) => !OPERATOR_PAGES.has(key) || api.company()?.coType !== "CO");

const root = document.getElementById("app");

/** Where a sign-in lands: Fleet for a company with vehicles, Bookings for one without (a booking platform). */
async function landing() {
  try {
    return (await api.core("GET", "/api/fleet?limit=1")).data.total > 0 ? "#/fleet" : "#/bookings";
  } catch {
    return "#/fleet";
  }
}

function signInForm(message) {
  const uid = h("input", { name: "uid", autocomplete: "username", required: true });
  const pw = h("input", { name: "pw", type: "password", autocomplete: "current-password", required: true });
  const problem = h("div");
  const form = submitForm(
    {
      class: "card signin",
      "aria-labelledby": "signin-title",
    },
    async () => {
      problem.replaceChildren();
      button.disabled = true;
      try {
        await api.signIn(uid.value.trim(), pw.value);
        pw.value = "";
        // A booking company (no fleet to run) lands on its bookings; an operator on its fleet, unless it has none yet.
        if (!location.hash || location.hash === "#/") location.hash = api.company()?.coType === "CO" ? "#/bookings" : await landing();
        render();
      } catch (error) {
        showError(problem, error.status === 401 ? { message: "Wrong user ID or password" } : error);
      } finally {
        button.disabled = false;
      }
    },
    h("h1", { id: "signin-title" }, "TripSwitch console"),
    message ? h("p", { role: "status" }, message) : null,
    field("User ID", uid, "Your uid (the netid for a company's first user) or e-mail"),
    field("Password", pw),
    problem,
  );
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  form.append(button);
  root.replaceChildren(h("main", { id: "main" }, form));
  uid.focus();
}

function shell(current) {
  const { netid, uid } = api.me();
  const nav = h(
    "nav",
    { "aria-label": "Console" },
    h(
      "ul",
      {},
      pages().map(([key, label]) =>
        h("li", {}, h("a", { href: `#/${key}`, "aria-current": key === current ? "page" : null }, label, key === "bookings" ? live.newTripsBadge() : null)),
      ),
    ),
  );
  const signOut = h(
    "button",
    {
      type: "button",
      onClick: async () => {
        live.stop();
        await api.signOut();
        signInForm("Signed out.");
      },
    },
    "Sign out",
  );
  const sandbox = api.company()?.sandbox
    ? h("span", { class: "badge sandbox", title: "A simulated dispatcher answers this company's trips" }, "Sandbox")
    : null;
  const main = h("main", { id: "main", tabindex: "-1" });
  root.replaceChildren(
    h("header", { class: "top" }, h("strong", {}, "TripSwitch"), nav, h("span", { class: "who" }, `${uid} · ${netid}`), sandbox, signOut),
    main,
  );
  return main;
}

async function render() {
  if (!api.signedIn()) return signInForm();
  live.start();
  const [, key = "fleet", ...rest] = location.hash.replace(/^#/, "").split("/");
  const page = pages().find(([k]) => k === key) ?? pages()[0];
  const main = shell(page[0]);
  try {
    if (page[0] === "bookings" && rest[0]) await bookingPage(main, decodeURIComponent(rest[0]));
    else await page[2](main);
  } catch (error) {
    showError(main, error);
  }
}

api.whenExpired((message) => (live.stop(), signInForm(message ?? "Your session ended; sign in again.")));
window.addEventListener("hashchange", () => render());
render();
