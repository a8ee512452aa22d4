// Integration (delivery endpoint, luggage mode, webhook URL and format, who may send trips, service radius, quotes:
// display currency, longest trip, cancellation and waiting policies; secret rotation).
import { h, field, select, showError, statusLine, submitForm } from "./dom.js";
import * as api from "./api.js";

function secretBox(secret) {
  return h(
    "div",
    { role: "alert", class: "card secret" },
    h("p", {}, "Your webhook signing secret — store it now, it is not shown again:"),
    h("code", { class: "secret-value" }, secret),
  );
}

export async function integrationPage(main) {
  const v = (await api.core("GET", "/api/company/integration")).data;
  const status = statusLine();
  const secret = h("div");
  const deliveryUrl = h("input", { name: "deliveryUrl", type: "url", value: v.deliveryUrl ?? "", placeholder: "https://you.example/farm-in" });
  const user = h("input", { name: "deliveryUser", value: v.deliveryAuth?.username ?? "", autocomplete: "off" });
  const pass = h("input", { name: "deliveryPassword", type: "password", autocomplete: "new-password", placeholder: v.deliveryAuth ? "(unchanged)" : "" });
  const luggage = select(
    "luggage",
    [
      ["notes", "notes — also as a line in the notes"],
      ["native", "native — the luggageCount field only"],
    ],
    v.luggage,
  );
  const webhookUrl = h("input", { name: "webhookUrl", type: "url", value: v.webhookUrl ?? "", placeholder: "https://you.example/hooks" });
  const format = select(
    "webhookFormat",
    [
      ["events", "events — TripSwitch envelope"],
      ["gnet", "gnet — GNet's callback body"],
    ],
    v.webhookFormat,
  );
  const accept = select(
    "acceptTripsFrom",
    [
      ["anyone", "anyone"],
      ["partners", "partners only"],
    ],
    v.acceptTripsFrom,
  );
  // A new webhook URL must echo a signed challenge before anything is sent there.
  const verification = h("p", { class: "muted" });
  const showVerification = (view) =>
    verification.replaceChildren(
      !view.webhookUrl
        ? ""
        : view.webhookVerified
          ? "Webhook URL verified."
          : `Webhook URL not verified: nothing is sent there until it echoes the challenge${view.webhookVerification ? ` (${view.webhookVerification})` : ""}.`,
    );
  showVerification(v);
  const radius = h("input", { name: "serviceRadiusKm", type: "number", min: "1", max: "500", step: "1", value: String(v.serviceRadiusKm ?? 50) });
  // As typed: the service refuses `eur` rather than upper-casing it (docs/fx.md#what-a-network-quote-shows), and says so beside the field.
  const displayCurrency = h("input", { name: "displayCurrency", value: v.displayCurrency ?? "", maxlength: "3", placeholder: "EUR", autocomplete: "off" });
  const maxTripKm = h("input", { name: "maxTripKm", type: "number", min: "1", max: "5000", step: "1", value: String(v.maxTripKm ?? "") });
  const policies = h("textarea", { name: "policies", rows: "6", spellcheck: "false" });
  policies.value = JSON.stringify(v.policies ?? null, null, 2);
  // What a provider that gives your booking back owes you (docs/settlement.md#give-back-recovery), as the tiers.
  const recovery = h("textarea", { name: "giveBackRecovery", rows: "5", spellcheck: "false" });
  recovery.value = JSON.stringify(v.giveBackRecovery ?? null, null, 2);
  const inputs = { displayCurrency, maxTripKm, policies, giveBackRecovery: recovery };
  // Only what was changed is sent: an untouched default stays a default (not stored as a figure).
  let shown = { maxTripKm: maxTripKm.value, policies: policies.value, recovery: recovery.value };
  /** Marks the inputs a 400 names (`policies.cancellation[0].percent` marks Policies) and clears the others. */
  const markInvalid = (errors) => {
    for (const [name, input] of Object.entries(inputs)) {
      const bad = (errors ?? []).some((e) => e.field === name || e.field.startsWith(`${name}.`) || e.field.startsWith(`${name}[`));
      if (bad) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  };

  const form = submitForm(
    {
      class: "card",
      "aria-label": "Integration settings",
    },
    async () => {
      const json = (input, name, label) => {
        try {
          return { value: JSON.parse(input.value.trim() || "null") };
        } catch {
          markInvalid([{ field: name }]);
          showError(status, { message: `${label} must be JSON`, errors: [{ field: name, message: "is not valid JSON" }] });
        }
      };
      const policyBody = json(policies, "policies", "Policies");
      const recoveryBody = policyBody && json(recovery, "giveBackRecovery", "Give-back recovery");
      if (!recoveryBody) return;
      const body = {
        deliveryUrl: deliveryUrl.value.trim() || null,
        luggage: luggage.value,
        webhookUrl: webhookUrl.value.trim() || null,
        webhookFormat: format.value,
        acceptTripsFrom: accept.value,
        serviceRadiusKm: Number(radius.value),
        displayCurrency: displayCurrency.value.trim() || null,
      };
      if (maxTripKm.value !== shown.maxTripKm) body.maxTripKm = maxTripKm.value.trim() === "" ? null : Number(maxTripKm.value);
      if (policies.value !== shown.policies) body.policies = policyBody.value;
      if (recovery.value !== shown.recovery) body.giveBackRecovery = recoveryBody.value;
      if (!user.value.trim()) body.deliveryAuth = null;
      else if (pass.value) body.deliveryAuth = { username: user.value.trim(), password: pass.value };
      try {
        const saved = (await api.core("PUT", "/api/company/integration", body)).data;
        pass.value = "";
        status.textContent = "Integration saved.";
        markInvalid([]);
        maxTripKm.value = String(saved.maxTripKm ?? "");
        policies.value = JSON.stringify(saved.policies ?? null, null, 2);
        recovery.value = JSON.stringify(saved.giveBackRecovery ?? null, null, 2);
        shown = { maxTripKm: maxTripKm.value, policies: policies.value, recovery: recovery.value };
        showVerification(saved);
        secret.replaceChildren(saved.webhookSecret ? secretBox(saved.webhookSecret) : "");
      } catch (error) {
        markInvalid(error?.errors);
        showError(status, error);
      }
    },
    h(
      "fieldset",
      {},
      h("legend", {}, "Trips sent to you (farm-in)"),
      field("Delivery URL", deliveryUrl, "Every NEW, UPDATE, CANCEL and QUOTE for you is POSTed here; empty = none"),
      field("Delivery user", user, "Basic auth; empty = none"),
      field("Delivery password", pass, "Leave empty to keep the stored one"),
      field("Luggage", luggage),
      field("Accept trips from", accept),
      field(
        "Service radius (km)",
        radius,
        "Quotes sent to you offer your vehicles that list the pickup airport or stand within this distance of the pickup (1–500)",
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, "Quotes"),
      field("Display currency", displayCurrency, "Network quotes also show each option converted into it (ISO 4217 in capitals, e.g. EUR); empty = none"),
      field("Longest trip (km)", maxTripKm, "Quotes for longer trips leave you out (1–5000 km of road); empty = the default"),
      field(
        "Policies (JSON)",
        policies,
        'Cancellation tiers (each costing more as the pickup nears), free waiting and your answer time, e.g. ' +
          '{"cancellation":[{"beforeMinutes":120,"percent":0},{"beforeMinutes":0,"percent":100}],"acceptWithinMinutes":20}; null = defaults',
      ),
      field(
        "Give-back recovery (JSON)",
        recovery,
        "What a provider that accepted your booking and then gives it back owes you: percent of the quoted fare by how " +
          'long before the pickup, e.g. [{"beforeMinutes":1440,"percent":0},{"beforeMinutes":120,"percent":50},{"beforeMinutes":0,"percent":100}]; ' +
          "null = that default",
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, "Webhooks (your bookings' changes)"),
      field("Webhook URL", webhookUrl, "Receives each booking change, signed (X-TripSwitch-Signature)"),
      field("Webhook format", format),
      h("p", { class: "muted" }, v.webhookSecretSet ? "A signing secret is set." : "No signing secret yet: saving a webhook URL creates one."),
      verification,
    ),
    h("button", { type: "submit", class: "primary" }, "Save integration"),
  );
  const rotate = h(
    "button",
    {
      type: "button",
      onClick: async () => {
        if (!confirm("Rotate the webhook secret? The old one stops verifying at once.")) return;
        try {
          secret.replaceChildren(secretBox((await api.core("POST", "/api/company/integration/webhook-secret")).data.webhookSecret));
          status.textContent = "Webhook secret rotated.";
        } catch (error) {
          showError(status, error);
        }
      },
    },
    "Rotate webhook secret",
  );
  const verify = h(
    "button",
    {
      type: "button",
      onClick: async () => {
        try {
          const checked = (await api.core("POST", "/api/company/integration/webhook-verify")).data;
          showVerification(checked);
          status.textContent = checked.webhookVerified ? "Webhook URL verified." : "The webhook URL did not answer the challenge.";
        } catch (error) {
          showError(status, error);
        }
      },
    },
    "Verify webhook URL",
  );
  main.replaceChildren(h("h1", {}, "Integration"), status, secret, form, h("p", {}, rotate, " ", verify));
}

// The Deliveries page lives in deliveries.js; app.js imports it from here.
export { deliveriesPage } from "./deliveries.js";
